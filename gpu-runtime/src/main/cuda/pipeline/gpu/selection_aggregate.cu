// Kernels of SelectionAggregate (org.spillway.gpu.pipeline.gpu): the hot shape of TPC-H Q6 -- a conjunction of range
// predicates on columns, then SUM (or COUNT) of a column or of the product of two columns, no GROUP BY --
// written as Crystal-style tile kernels instead of interpreting the register program. A block of 256 threads
// takes tiles of 1024 rows (4 per thread, striped so that a warp's loads are coalesced), evaluates the
// predicates column by column, adds the selected rows into per-thread 128-bit sums, reduces them over the
// block and adds them into the aggregate state with one atomic per block and sum.
// The two variants of Pump Up the Volume (Lutz et al., SIGMOD 2020, Sec. 7.2.4):
//   selection_aggregate_branching   loads a column only for rows that passed every predicate before it, so
//                                   that under zero-copy a warp whose rows all failed fetches nothing more;
//   selection_aggregate_predication loads every column for every row, combines the predicates without
//                                   branches and masks each row's contribution.
// Products are checked for overflow (of selected rows only) and sums are 128-bit, exactly as the general
// kernel (columnar_pipeline.cu) computes them, so the two agree value for value.
#include "pipeline_chunks.cuh"

using namespace spillway;

namespace {

constexpr int kBlock = 256;
constexpr int kItems = 4;
constexpr unsigned long long kTile = kBlock * kItems;
constexpr int kMaxPredicates = 4;
constexpr int kMaxSums = 4;

// The matched shape, passed by value; every field is one 64-bit word (SelectionAggregate.argument writes
// them in this order). Columns are chunk column slots; a sum operand that a predicate already loaded names
// that predicate, so that it is not loaded twice.
struct SelectionArg {
  long long predicate_count;
  long long predicate_column[kMaxPredicates];
  long long low[kMaxPredicates];
  long long high[kMaxPredicates];
  long long sum_count;
  long long left_column[kMaxSums];
  long long left_predicate[kMaxSums];   // -1: load left_column
  long long right_column[kMaxSums];     // -1: the sum is of the left operand alone
  long long right_predicate[kMaxSums];
  long long origin[kMaxSums];           // reported with an overflow of the product
  long long state_call[kMaxSums];       // the aggregate call whose accumulator the sum adds into
  long long wide_mask;                  // bit c: column slot c holds 8-byte values (else 4)
};

__device__ __forceinline__ long long load(const ChunkArg& chunk, long long wide_mask, long long column,
                                          unsigned long long row) {
  return (wide_mask >> column) & 1 ? static_cast<const long long*>(chunk.column[column])[row]
                                   : static_cast<long long>(static_cast<const int*>(chunk.column[column])[row]);
}

// A sum operand of item k: the value a predicate loaded, or a load of its column.
__device__ __forceinline__ long long operand(const ChunkArg& chunk, const SelectionArg& s, long long column,
                                             long long predicate, const long long (&loaded)[kMaxPredicates][kItems],
                                             int k, unsigned long long row) {
  if (predicate < 0) return load(chunk, s.wide_mask, column, row);
  long long v = 0;
#pragma unroll
  for (int q = 0; q < kMaxPredicates; q++) v = q == predicate ? loaded[q][k] : v;
  return v;
}

template <bool kBranching>
__device__ __forceinline__ void selection_aggregate(const ChunkArg& chunk, const ChunkArg* __restrict__ table,
                                                    long long table_count, unsigned long long table_tiles,
                                                    const SelectionArg& s, unsigned long long* state) {
  unsigned long long count = 0;
  unsigned long long lo[kMaxSums];
  long long hi[kMaxSums];
#pragma unroll
  for (int i = 0; i < kMaxSums; i++) { lo[i] = 0; hi[i] = 0; }
  for_each_tile<kTile>(chunk, table, table_count, table_tiles, [&](const ChunkArg& ch, unsigned long long first) {
    bool exists[kItems];
    bool selected[kItems];
    long long loaded[kMaxPredicates][kItems];
#pragma unroll
    for (int k = 0; k < kItems; k++) {
      exists[k] = first + k * kBlock + threadIdx.x < ch.rows;
      selected[k] = exists[k];
    }
#pragma unroll
    for (int q = 0; q < kMaxPredicates; q++) {
      if (q >= s.predicate_count) break;
#pragma unroll
      for (int k = 0; k < kItems; k++) {
        const unsigned long long row = first + k * kBlock + threadIdx.x;
        if (kBranching ? selected[k] : exists[k]) {
          const long long v = load(ch, s.wide_mask, s.predicate_column[q], row);
          loaded[q][k] = v;
          selected[k] = selected[k] & (v >= s.low[q]) & (v <= s.high[q]);
        } else {
          loaded[q][k] = 0;
        }
      }
    }
#pragma unroll
    for (int i = 0; i < kMaxSums; i++) {
      if (i >= s.sum_count) break;
#pragma unroll
      for (int k = 0; k < kItems; k++) {
        const unsigned long long row = first + k * kBlock + threadIdx.x;
        if (kBranching ? selected[k] : exists[k]) {
          long long v = operand(ch, s, s.left_column[i], s.left_predicate[i], loaded, k, row);
          if (s.right_column[i] >= 0) {
            const long long b = operand(ch, s, s.right_column[i], s.right_predicate[i], loaded, k, row);
            const long long product = static_cast<long long>(static_cast<unsigned long long>(v) * static_cast<unsigned long long>(b));
            if (__mul64hi(v, b) != (product >> 63) && selected[k]) fail(state, ERR_ARITH, static_cast<int>(s.origin[i]));
            v = product;
          }
          add128(lo[i], hi[i], selected[k] ? v : 0);
        }
      }
    }
#pragma unroll
    for (int k = 0; k < kItems; k++) count += selected[k];
  });
  long long zero = 0;
  block_sum128<kBlock>(count, zero);
  if (threadIdx.x == 0 && count) atomicAdd(state + 3, count);  // the row count of the one slot
#pragma unroll
  for (int i = 0; i < kMaxSums; i++) {
    if (i >= s.sum_count) break;
    block_sum128<kBlock>(lo[i], hi[i]);
    if (threadIdx.x == 0) {
      unsigned long long* acc = state + 2 + (2 + 3 * s.state_call[i]);  // lo, then hi one slot further
      atomic_add128(acc, acc + 1, lo[i], hi[i]);
    }
  }
}

}  // namespace

extern "C" __global__ void __launch_bounds__(kBlock, 3) selection_aggregate_branching(
    const __grid_constant__ ChunkArg chunk, const ChunkArg* __restrict__ table, long long table_count, unsigned long long table_tiles,
    const __grid_constant__ SelectionArg s, unsigned long long* state) {
  selection_aggregate<true>(chunk, table, table_count, table_tiles, s, state);
}

extern "C" __global__ void __launch_bounds__(kBlock, 3) selection_aggregate_predication(
    const __grid_constant__ ChunkArg chunk, const ChunkArg* __restrict__ table, long long table_count, unsigned long long table_tiles,
    const __grid_constant__ SelectionArg s, unsigned long long* state) {
  selection_aggregate<false>(chunk, table, table_count, table_tiles, s, state);
}
