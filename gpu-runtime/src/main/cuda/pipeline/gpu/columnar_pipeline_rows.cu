// Kernels of GpuColumnarPipeline (org.spillway.gpu.pipeline.gpu) for pipelines without an aggregation: a fused
// filter -> project over one streamed chunk that returns the selected rows' output columns, in three steps.
// 1. columnar_pipeline_rows: each thread runs the pipeline's register program (pipeline_program.cuh) for its row;
//    a block-wide count of the selected rows before each thread (a warp ballot, then the warps' totals) gives
//    every selected row its rank, and its output values go to position tile * kBlock + rank of a staging buffer
//    in GPU memory, the tile's count beside them: no atomics, and input order kept exactly.
// 2. columnar_pipeline_rows_scan: one block turns the tiles' counts into the tiles' first output positions and
//    copies the counts to the output buffer.
// 3. columnar_pipeline_rows_gather: a thread per selected row moves it from its tile's segment of the staging
//    buffer to its position in the output buffer, pinned and mapped host memory (GpuRowsLayout), so that each
//    warp writes whole lines over the link. (Written straight from step 1, a selective filter left a few bytes
//    per tile and column: small writes that crossed the link far below its bandwidth.) A copy back instead would
//    need the output's size before the kernels ran. The staging buffer holds every row of a chunk, the output
//    buffer a window of selected rows: a selective pipeline streams long chunks into small pinned buffers, and
//    a chunk that selects more rows than a window holds is gathered again, window by window (`first`).
// Errors (overflow, division by zero) of selected rows set the run's error word, as in columnar_pipeline.cu.
#include "pipeline_program.cuh"

using namespace spillway;

namespace {

constexpr int kBlock = 256;

// Where a launch writes its rows, passed by value; every field is one 64-bit word (GpuRowsPass writes them in
// this order).
struct RowsArg {
  unsigned char* base;        // the chunk's staging buffer (step 1) or output buffer (device view of mapped memory)
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

// Filters and projects one chunk, or every chunk of a table of resident batches (table != nullptr: each batch's
// tiles follow the batches before it), in tiles of kBlock rows, a block taking tiles b, b + gridDim.x, ...; writes
// each tile's selected rows, in row order, to its segment of the output and its count to counts[tile].
extern "C" __global__ void __launch_bounds__(kBlock) columnar_pipeline_rows(
    const __grid_constant__ ChunkArg chunk, const ChunkArg* __restrict__ table, long long table_count,
    unsigned long long table_tiles, const __grid_constant__ ProgramArg p, const __grid_constant__ RowsArg out,
    unsigned long long* error) {
  extern __shared__ uint4 text_shared[];
  __shared__ TextTile staged;
  const unsigned text_bytes = dynamic_shared_bytes();
  Row w;
  unsigned* counts = reinterpret_cast<unsigned*>(out.base + out.counts_offset);
  for_each_tile<kBlock>(chunk, table, table_count, table_tiles, [&](const ChunkArg& ch, unsigned long long first) {
    if (text_bytes) stage_text<kBlock>(ch, first, &staged, text_shared, text_bytes);
    const unsigned long long row = first + threadIdx.x;
    const bool selected = row < ch.rows && run_program(ch, p, row, w, error, text_bytes ? &staged : nullptr);
    unsigned total;
    const unsigned rank = block_rank<kBlock>(selected, total);
    const unsigned long long tile = ch.first_tile + first / kBlock;  // a lone chunk's first tile is 0
    if (selected) write_row(out, w, tile * kBlock + rank);
    if (threadIdx.x == 0) counts[tile] = total;
  });
}

// Step 2, one block: offsets[t] = rows of tiles before t, offsets[tiles] = all of them; the counts go to `out`.
extern "C" __global__ void __launch_bounds__(1024) columnar_pipeline_rows_scan(
    const __grid_constant__ RowsArg staging, const __grid_constant__ RowsArg out, long long tiles,
    unsigned* offsets) {
  __shared__ unsigned partial[1025];
  const unsigned* counts = reinterpret_cast<const unsigned*>(staging.base + staging.counts_offset);
  unsigned* out_counts = reinterpret_cast<unsigned*>(out.base + out.counts_offset);
  block_exclusive_scan<unsigned>(offsets, tiles, [&](long long t) { return counts[t]; }, partial);
  if (threadIdx.x == 0) offsets[tiles] = partial[blockDim.x];
  for (long long t = threadIdx.x; t < tiles; t += blockDim.x) out_counts[t] = counts[t];
}

// Step 3: output row j comes from the tile t with offsets[t] <= j < offsets[t + 1], at its rank j - offsets[t]; the
// window holds rows first .. first + limit - 1, row j at its position j - first.
extern "C" __global__ void __launch_bounds__(kBlock) columnar_pipeline_rows_gather(
    const __grid_constant__ RowsArg staging, const __grid_constant__ RowsArg out, long long tiles,
    const unsigned* offsets, unsigned long long first, unsigned long long limit) {
  const unsigned long long total = offsets[tiles];
  const unsigned long long end = total < first + limit ? total : first + limit;
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long j = first + blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
       j < end; j += stride) {
    long long lo = 0, hi = tiles - 1;  // the last tile whose first position is at most j
    while (lo < hi) {
      const long long mid = (lo + hi + 1) / 2;
      if (offsets[mid] <= j) lo = mid; else hi = mid - 1;
    }
    const unsigned long long from = static_cast<unsigned long long>(lo) * kBlock + (j - offsets[lo]);
    const unsigned long long to = j - first;
    for (long long k = 0; k < out.column_count; k++) {
      const long long* source = staging.columns + 4 * k;
      const long long* column = out.columns + 4 * k;
      const long long width = column[1];
      const unsigned char* src = staging.base + source[2];
      unsigned char* dst = out.base + column[2];
      if (width == 8) reinterpret_cast<long long*>(dst)[to] = reinterpret_cast<const long long*>(src)[from];
      else if (width == 4) reinterpret_cast<int*>(dst)[to] = reinterpret_cast<const int*>(src)[from];
      else dst[to] = src[from];
      if (column[3] >= 0) out.base[column[3] + to] = staging.base[source[3] + from];
    }
  }
}
