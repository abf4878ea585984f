// The windowed index nested-loop join on the GPU (org.spillway.gpu.join.inlj.GpuWindowedIndexJoin; Schmeißer,
// Lutz and Markl, EDBT 2025, Sec. 5): per window of probe keys copied into GPU memory, a radix partitioning in
// three kernels (histogram, exclusive prefix sum, scatter of (key, position in the window)), then the index's
// own lookup kernel (src/main/cuda/index/) over the partitioned keys, then window_restore puts the rows found
// back into the window's original order. All of a window's kernels run on one stream, in that order.
//
// `cursors` holds fanout + 2 counters: the histogram of partitions 0 .. fanout-1, turned by window_offsets into
// their first slots, then the reject partition's cursor (its first slot is the number of matchable keys) and
// that number once more, which window_restore reads after the scatter has moved the cursors on.
#include "join/inlj/partitioning_window.cuh"

// Counts the matchable keys of each partition: shared-memory counters per block, added to `cursors` once.
extern "C" __global__ void window_histogram(const void* keys, int wide, const unsigned char* validity,
                                            unsigned long long count, long long min_key, long long max_key, int shift,
                                            int fanout, int empty, unsigned* cursors) {
  const inlj::WindowRadix radix{min_key, max_key, shift, fanout, empty};
  __shared__ unsigned local[inlj::kMaxFanout];
  for (int p = threadIdx.x; p < radix.fanout; p += blockDim.x) local[p] = 0;
  __syncthreads();
  for (unsigned long long i = blockIdx.x * (unsigned long long) blockDim.x + threadIdx.x; i < count;
       i += (unsigned long long) gridDim.x * blockDim.x) {
    const int p = radix.partition_of(inlj::window_key(keys, wide, i), spillway::is_valid(validity, i));
    if (p < radix.fanout) atomicAdd(&local[p], 1u);
  }
  __syncthreads();
  for (int p = threadIdx.x; p < radix.fanout; p += blockDim.x) {
    if (local[p] != 0) atomicAdd(&cursors[p], local[p]);
  }
}

// One block: the exclusive prefix sum of the histogram, in place, so cursors[p] is partition p's first slot;
// cursors[fanout] and cursors[fanout + 1] become the number of matchable keys.
extern "C" __global__ void window_offsets(unsigned* cursors, int fanout) {
  __shared__ unsigned partial[1024 + 1];
  spillway::block_exclusive_scan(cursors, fanout, [&](long long p) { return cursors[p]; }, partial);
  if (threadIdx.x == 0) {
    cursors[fanout] = partial[blockDim.x];
    cursors[fanout + 1] = partial[blockDim.x];
  }
}

// Writes every key of the window into its partition's slots, with its position in the window; a reject
// key is written as `reject_key` (which the lookups find fast, or whose row window_restore ignores).
// Warp-uniform loop: every lane reaches claim_slot in every round.
extern "C" __global__ void window_scatter(const void* keys, int wide, const unsigned char* validity,
                                          unsigned long long count, long long min_key, long long max_key, int shift,
                                          int fanout, int empty, long long reject_key, unsigned* cursors,
                                          long long* partitioned_keys, unsigned* positions) {
  const inlj::WindowRadix radix{min_key, max_key, shift, fanout, empty};
  const unsigned lane = threadIdx.x % spillway::kWarpSize;
  for (unsigned long long base = blockIdx.x * (unsigned long long) blockDim.x + threadIdx.x - lane; base < count;
       base += (unsigned long long) gridDim.x * blockDim.x) {
    const unsigned long long i = base + lane;
    const bool active = i < count;
    const long long key = active ? inlj::window_key(keys, wide, i) : 0;
    const int p = active ? radix.partition_of(key, spillway::is_valid(validity, i)) : -1;
    const unsigned slot = inlj::claim_slot(p, cursors);
    if (active) {
      partitioned_keys[slot] = p < radix.fanout ? key : reject_key;
      positions[slot] = static_cast<unsigned>(i);
    }
  }
}

// result[positions[i]] = rows[i] for the matchable keys, -1 for the rejects: every position of the window is
// written once, so the window's result needs no clearing.
extern "C" __global__ void window_restore(const long long* rows, const unsigned* positions, unsigned long long count,
                                          const unsigned* matchable, long long* result) {
  const unsigned long long found = *matchable;
  for (unsigned long long i = blockIdx.x * (unsigned long long) blockDim.x + threadIdx.x; i < count;
       i += (unsigned long long) gridDim.x * blockDim.x) {
    result[positions[i]] = i < found ? rows[i] : -1;
  }
}
