// Warp- and block-wide primitives that every kernel module shares, in the style of Crystal's block
// functions (Shanbhag et al., SIGMOD '20): small __device__ functions that a kernel composes, each written
// once. Collective functions must be called by every thread of the warp or block (the name says which),
// from code that all of them reach; block-wide ones synchronize the block.
#pragma once
#include <climits>
#include <cstdint>

namespace spillway {

constexpr int kWarpSize = 32;
constexpr unsigned kFullMask = 0xffffffffu;

struct Sum { template <typename T> __device__ T operator()(T a, T b) const { return a + b; } };
struct Min { template <typename T> __device__ T operator()(T a, T b) const { return a < b ? a : b; } };
struct Max { template <typename T> __device__ T operator()(T a, T b) const { return a > b ? a : b; } };
struct Xor { template <typename T> __device__ T operator()(T a, T b) const { return a ^ b; } };

// Arrow validity: bit row % 8 of byte row / 8; no bitmap means no NULLs.
__device__ __forceinline__ bool is_valid(const unsigned char* validity, unsigned long long row) {
  return validity == nullptr || ((validity[row >> 3] >> (row & 7)) & 1);
}

// Reduces v over the warp; lane 0 holds the result.
template <typename T, typename Op>
__device__ __forceinline__ T warp_reduce(T v, Op op) {
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) v = op(v, __shfl_down_sync(kFullMask, v, offset));
  return v;
}

// Reduces v over the block (up to 1024 threads); thread 0 holds the result. Threads past the last warp's
// partial count as `identity`. The leading barrier lets a kernel call it in a loop: the previous call's
// readers of `partial` are done before it is written again.
template <typename T, typename Op>
__device__ __forceinline__ T block_reduce(T v, Op op, T identity) {
  __shared__ T partial[1024 / kWarpSize];
  const int lane = threadIdx.x % kWarpSize;
  const int warp = threadIdx.x / kWarpSize;
  v = warp_reduce(v, op);
  __syncthreads();
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  const int warps = (blockDim.x + kWarpSize - 1) / kWarpSize;
  v = threadIdx.x < warps ? partial[threadIdx.x] : identity;
  return warp == 0 ? warp_reduce(v, op) : v;
}

// Sum of a signed 128-bit (lo, hi) pair over the warp; lane 0 holds the result.
__device__ __forceinline__ void warp_sum128(unsigned long long& lo, long long& hi) {
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) {
    const unsigned long long olo = __shfl_down_sync(kFullMask, lo, offset);
    const long long ohi = __shfl_down_sync(kFullMask, hi, offset);
    const unsigned long long sum = lo + olo;
    hi += ohi + (sum < lo ? 1 : 0);
    lo = sum;
  }
}

// Combines the (lo, hi) values of the lanes that share a group (`peers`: this lane's group, as
// __match_any_sync gives it) into the group's lowest lane, which then alone updates the group's accumulators:
// with few groups per warp this replaces up to 32 contending atomics by one. A tree over each group's lanes:
// in each round the lanes at an even rank among those still in take the value of the next such lane above them,
// and the odd ones drop out. Every lane of the warp must call it; lanes outside any group pass peers = own bit.
template <typename Combine>
__device__ __forceinline__ void warp_reduce_peers(unsigned peers, unsigned long long& lo, long long& hi,
                                                  Combine combine) {
  const unsigned lane = threadIdx.x % kWarpSize;
  unsigned rank = __popc(peers & ((1u << lane) - 1u));
  unsigned above = lane == kWarpSize - 1 ? 0u : peers & (kFullMask << (lane + 1));
  while (__any_sync(kFullMask, above != 0)) {
    const int next = above != 0 ? __ffs(above) - 1 : static_cast<int>(lane);
    const unsigned long long other_lo = __shfl_sync(kFullMask, lo, next);
    const long long other_hi = __shfl_sync(kFullMask, hi, next);
    if (above != 0 && (rank & 1) == 0) combine(lo, hi, other_lo, other_hi);
    above &= __ballot_sync(kFullMask, (rank & 1) == 0);
    rank >>= 1;
  }
}

// The lowest lane of `peers` (a __match_any_sync group) is this lane.
__device__ __forceinline__ bool leads_peers(unsigned peers) {
  return (peers & ((1u << (threadIdx.x % kWarpSize)) - 1u)) == 0;
}

// Sum of a signed 128-bit (lo, hi) pair over a block of kBlock threads; thread 0 holds the result.
template <int kBlock>
__device__ __forceinline__ void block_sum128(unsigned long long& lo, long long& hi) {
  __shared__ unsigned long long shared_lo[kBlock / kWarpSize];
  __shared__ long long shared_hi[kBlock / kWarpSize];
  warp_sum128(lo, hi);
  const int warp = threadIdx.x / kWarpSize;
  if (threadIdx.x % kWarpSize == 0) { shared_lo[warp] = lo; shared_hi[warp] = hi; }
  __syncthreads();
  if (warp == 0) {
    lo = threadIdx.x < kBlock / kWarpSize ? shared_lo[threadIdx.x] : 0;
    hi = threadIdx.x < kBlock / kWarpSize ? shared_hi[threadIdx.x] : 0;
    warp_sum128(lo, hi);
  }
  __syncthreads();
}

// The number of selected threads of a block of kBlock threads before this one (its rank among them) and, in
// `total`, of the whole block: a warp ballot, then the warps' counts. Stream compaction writes selected rows
// at their rank, so a block keeps its input order without atomics.
template <int kBlock>
__device__ __forceinline__ unsigned block_rank(bool selected, unsigned& total) {
  constexpr int kWarps = kBlock / kWarpSize;
  __shared__ unsigned warp_counts[kWarps];
  const unsigned lane = threadIdx.x % kWarpSize;
  const unsigned warp = threadIdx.x / kWarpSize;
  const unsigned ballot = __ballot_sync(kFullMask, selected);
  if (lane == 0) warp_counts[warp] = __popc(ballot);
  __syncthreads();
  unsigned before = 0;
  total = 0;
  for (unsigned w = 0; w < kWarps; w++) {
    const unsigned count = warp_counts[w];
    before += w < warp ? count : 0;
    total += count;
  }
  __syncthreads();  // the next call overwrites warp_counts
  return before + __popc(ballot & ((1u << lane) - 1u));
}

// Exclusive prefix sum of n values (load(i) gives value i) into out by one block: each thread sums a
// contiguous segment, thread 0 scans the segments' sums. partial holds blockDim.x + 1 values; afterwards
// partial[blockDim.x] is the total.
template <typename T, typename Load>
__device__ void block_exclusive_scan(T* out, long long n, Load load, T* partial) {
  const long long per = (n + blockDim.x - 1) / blockDim.x;
  const long long lo = min(n, threadIdx.x * per);
  const long long hi = min(n, lo + per);
  T sum = 0;
  for (long long i = lo; i < hi; i++) sum += load(i);
  partial[threadIdx.x] = sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    T run = 0;
    for (int t = 0; t < blockDim.x; t++) {
      const T v = partial[t];
      partial[t] = run;
      run += v;
    }
    partial[blockDim.x] = run;
  }
  __syncthreads();
  T run = partial[threadIdx.x];
  for (long long i = lo; i < hi; i++) {
    const T v = load(i);
    out[i] = run;
    run += v;
  }
  __syncthreads();
}

// Warp-aggregated append: the lanes with `emit` reserve consecutive slots at *cursor with one atomicAdd
// per warp (by the first emitting lane), in lane order. Returns this lane's slot, meaningful only where it
// emits. Every lane of the warp must call it.
__device__ __forceinline__ unsigned long long warp_append(bool emit, unsigned long long* cursor) {
  const unsigned mask = __ballot_sync(kFullMask, emit);
  if (mask == 0) return 0;
  const int lane = threadIdx.x % kWarpSize;
  const int leader = __ffs(mask) - 1;
  unsigned long long base = 0;
  if (lane == leader) base = atomicAdd(cursor, static_cast<unsigned long long>(__popc(mask)));
  base = __shfl_sync(kFullMask, base, leader);
  return base + __popc(mask & ((1u << lane) - 1));
}

}  // namespace spillway
