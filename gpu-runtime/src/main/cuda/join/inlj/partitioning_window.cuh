// Device functions of the partitioning window (Schmeißer, Lutz and Markl, EDBT 2025, Sec. 5.1), composed by the
// kernels of windowed_index_join.cu: reading a window's probe key, the radix partition of a key on the high
// bits of its offset from the indexed column's smallest key (org.spillway.gpu.join.inlj.WindowRadix computes
// the same on the CPU), and the warp's claim of consecutive slots per partition.
#pragma once
#include "block_primitives.cuh"

namespace inlj {

// The most partitions a window has: 2^11, the paper's fanout (WindowRadix.RADIX_BITS).
constexpr int kMaxFanout = 2048;

// The radix of a window's keys. A key that no lookup can find (NULL, or outside [min_key, max_key], or any key
// when the column is empty) is a reject: it goes to the reject partition `fanout`, after all others.
struct WindowRadix {
  long long min_key;
  long long max_key;
  int shift;
  int fanout;
  int empty;  // 1 when the indexed column has no rows

  __device__ __forceinline__ int partition_of(long long key, bool valid) const {
    if (empty || !valid || key < min_key || key > max_key) return fanout;
    // unsigned: the offset of a key from the smallest may exceed LLONG_MAX (signed overflow is undefined)
    return static_cast<int>((static_cast<unsigned long long>(key) - static_cast<unsigned long long>(min_key)) >> shift);
  }
};

// Key `i` of a window: 8-byte keys (wide == 1) or 4-byte keys widened, as the CPU join widens INT keys.
__device__ __forceinline__ long long window_key(const void* keys, int wide, unsigned long long i) {
  return wide ? static_cast<const long long*>(keys)[i] : static_cast<long long>(static_cast<const int*>(keys)[i]);
}

// Warp-aggregated claim of slots per partition: the lanes of a warp with the same `partition` take consecutive
// slots from cursors[partition], one atomicAdd per distinct partition of the warp (skewed windows put many
// lanes into one partition). Lanes with partition < 0 take none. Returns this lane's slot. Every lane of the
// warp must call it.
__device__ __forceinline__ unsigned claim_slot(int partition, unsigned* cursors) {
  const unsigned lane = threadIdx.x % spillway::kWarpSize;
  const unsigned peers = __match_any_sync(spillway::kFullMask, partition);
  const int leader = __ffs(peers) - 1;
  unsigned first = 0;
  if (static_cast<int>(lane) == leader && partition >= 0) first = atomicAdd(&cursors[partition], __popc(peers));
  first = __shfl_sync(spillway::kFullMask, first, leader);
  return first + __popc(peers & ((1u << lane) - 1u));
}

}  // namespace inlj
