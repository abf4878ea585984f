// Kernel of GpuColumnarPipeline (org.spillway.gpu.pipeline.gpu) for pipelines without an aggregation: a fused
// filter -> project over one streamed chunk that returns the selected rows' output columns. Each thread runs
// the pipeline's register program (pipeline_program.cuh) for its row; a block-wide count of the selected
// rows before each thread (a warp ballot, then the warps' totals) gives every selected row its rank, and the
// row's output values go to position tile * kBlock + rank of the chunk's output buffer. A tile therefore
// writes one contiguous, ordered segment at its own place, with no atomics and no second pass, and its count
// tells the host (GpuRowsAssembler) how much of the segment holds rows: input order is kept exactly.
// The output buffer is pinned, mapped host memory (GpuRowsLayout): a copy back would need its size before
// the kernel ran, so the kernel writes the selected rows over the link itself, as the Triton join writes its
// output (Lutz et al., SIGMOD '22, Sec. 5.1); only selected rows and the tiles' counts cross the link.
// Errors (overflow, division by zero) of selected rows set the run's error word, as in columnar_pipeline.cu.
#include "pipeline_program.cuh"

using namespace spillway;

namespace {

constexpr int kBlock = 256;

// Where a launch writes its rows, passed by value; every field is one 64-bit word (GpuRowsPass writes them in
// this order).
struct RowsArg {
  unsigned char* base;        // the chunk's output buffer (device view of mapped pinned host memory)
  const long long* columns;   // per output column: register, width (1, 4 or 8), values offset, flags offset or -1
  long long column_count;
  long long counts_offset;    // per tile: the selected rows (unsigned 32-bit)
};

// The row's output registers at position `at` of each output column: values narrowed to the column's width
// (the compiler admits only values that fit) and, for columns that may be NULL, a flag byte.
__device__ __forceinline__ void write_row(const RowsArg& out, const Row& w, unsigned long long at) {
  for (long long k = 0; k < out.column_count; k++) {
    const long long* column = out.columns + 4 * k;
    const int reg = static_cast<int>(column[0]);
    const long long width = column[1];
    unsigned char* values = out.base + column[2];
    const long long v = w.r[reg];
    if (width == 8) reinterpret_cast<long long*>(values)[at] = v;
    else if (width == 4) reinterpret_cast<int*>(values)[at] = static_cast<int>(v);
    else values[at] = static_cast<unsigned char>(v);
    if (column[3] >= 0) out.base[column[3] + at] = w.is_null(reg) ? 1 : 0;
  }
}

}  // namespace

// Filters and projects one chunk (tiles of kBlock rows, a block taking tiles b, b + gridDim.x, ...) and writes
// each tile's selected rows, in row order, to its segment of the output and its count to counts[tile].
extern "C" __global__ void __launch_bounds__(kBlock) columnar_pipeline_rows(
    const __grid_constant__ ChunkArg chunk, const __grid_constant__ ProgramArg p,
    const __grid_constant__ RowsArg out, unsigned long long* error) {
  Row w;
  unsigned* counts = reinterpret_cast<unsigned*>(out.base + out.counts_offset);
  for_each_tile<kBlock>(chunk, nullptr, 0, 0, [&](const ChunkArg& ch, unsigned long long first) {
    const unsigned long long row = first + threadIdx.x;
    const bool selected = row < ch.rows && run_program(ch, p, row, w, error);
    unsigned total;
    const unsigned rank = block_rank<kBlock>(selected, total);
    if (selected) write_row(out, w, first + rank);
    if (threadIdx.x == 0) counts[first / kBlock] = total;
  });
}
