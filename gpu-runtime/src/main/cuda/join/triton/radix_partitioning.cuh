// Device helpers shared by the radix partitioners of the Triton join (Lutz et al., SIGMOD '22, Sec. 4):
// the multiply-shift radix digit, 16-byte {key, value} tuples, the paged partition array (cache pages in
// GPU memory, spill pages in pinned mapped host memory) and the fill phase of shared software
// write-combining (Shared, Sec. 4.2) with its warp-level buffer lock. HierarchicalPartitioner
// (hierarchical_partitioner.cu) and SharedPartitioner (shared_partitioner.cu) differ only in their flush.
#pragma once
#include <climits>
#include <cstdint>

#include "block_primitives.cuh"

namespace radix {

constexpr unsigned long long kMultiplier = 0x9E3779B97F4A7C15ull;  // LinearProbingTable.MULTIPLIER
constexpr int kWarp = spillway::kWarpSize;
constexpr unsigned kFullMask = spillway::kFullMask;
// Padding in front of every (block, partition) region: 8 tuples = 128 bytes, so the region's first flush
// can start at the 128-byte boundary below its data and every flush is a whole, aligned transaction.
constexpr int kPadTuples = 8;
constexpr long long kPadKey = LLONG_MIN;  // what padding slots hold; never read as data (counts bound reads)
constexpr long long kPadValue = -1;

typedef longlong2 Tuple;  // x = key, y = value (row id or payload)

// The partition of key: bits [shift, shift + bits) from the top of its multiply-shift hash, as
// RadixPartitioner.digit computes it in Java. Pass 1 takes the top B1 bits, pass 2 the next B2, the
// shared-memory hash table the next 11.
__device__ __forceinline__ unsigned digit(long long key, int shift, int bits) {
  if (bits == 0) return 0;
  const unsigned long long h = static_cast<unsigned long long>(key) * kMultiplier;
  return static_cast<unsigned>((h << shift) >> (64 - bits));
}

// A partition array addressed by tuple index through a page table: page i >> log_page starts at
// pages[i >> log_page], in GPU memory (cached) or in pinned mapped host memory (spilled).
struct PagedArray {
  const unsigned long long* pages;
  int log_page;

  __device__ __forceinline__ Tuple* at(long long i) const {
    Tuple* page = reinterpret_cast<Tuple*>(pages[i >> log_page]);
    return page + (i & ((1ll << log_page) - 1));
  }
};

// Reads row `row` of an INT32 (wide == 0) or INT64 column as a long, as the CPU joins widen INT32.
__device__ __forceinline__ long long load_int(const void* column, int wide, long long row) {
  return wide ? static_cast<const long long*>(column)[row]
              : static_cast<long long>(static_cast<const int*>(column)[row]);
}

// The shared-memory write-combining buffers of one thread block: `size` tuples per partition; slots[p]
// is the next free slot of buffer p and signal[p] counts completed writes into it. The first invalid
// slot (slots[p] == size) is the buffer's lock: the thread whose atomicAdd returns exactly `size` owns
// the full buffer until it resets slots[p] to 0.
struct SharedBuffers {
  Tuple* tuples;  // [fanout][size]
  int* slots;
  int* signal;
  int size;
};

// Sets up buffer p for a region whose data starts at tuple `data_start`. With padding the region's
// first flush starts at the 128-byte boundary below data_start: the buffer's first `misalign` slots
// hold padding that lands in the region's own pad area. Returns the flush cursor (that boundary).
__device__ __forceinline__ long long init_buffer(const SharedBuffers& b, int p, long long data_start,
                                                 bool padded) {
  const long long start = padded ? (data_start & ~static_cast<long long>(kPadTuples - 1)) : data_start;
  const int misalign = static_cast<int>(data_start - start);
  for (int k = 0; k < misalign; k++) b.tuples[p * b.size + k] = make_longlong2(kPadKey, kPadValue);
  b.slots[p] = misalign;
  b.signal[p] = misalign;
  return start;
}

// One round of the fill phase for the calling warp (all lanes call it): each lane that is not done
// takes a slot in its partition's buffer and stores its tuple there. Returns the lanes that own the lock
// of a full buffer; `pos` is the slot this lane got (-1 when it was already done).
__device__ __forceinline__ unsigned fill_round(const SharedBuffers& b, unsigned p, Tuple t, bool& done,
                                               int& pos) {
  pos = -1;
  if (!done) {
    pos = atomicAdd(&b.slots[p], 1);
    if (pos < b.size) {
      b.tuples[p * b.size + pos] = t;
      __threadfence_block();  // the tuple is visible before the signal that counts it
      atomicAdd(&b.signal[p], 1);
      done = true;
    }
  }
  return __ballot_sync(kFullMask, pos == b.size);
}

// Elects the warp's leader among the lock owners `owners` (non-zero); the other owners give their
// lock back at once (slots = size again: the next thread to ask owns it) so that other warps can flush
// those buffers in parallel. Returns the leader's partition, whose lock the warp now holds.
__device__ __forceinline__ unsigned elect_flush(const SharedBuffers& b, unsigned owners, unsigned p, int pos) {
  const int lane = threadIdx.x % kWarp;
  const int leader = __ffs(owners) - 1;
  if (pos == b.size && lane != leader) atomicExch(&b.slots[p], b.size);
  const unsigned lp = __shfl_sync(kFullMask, p, leader);
  // Every slot of the buffer was handed out; wait until every writer finished.
  if (lane == leader) {
    while (*reinterpret_cast<volatile int*>(&b.signal[lp]) != b.size) {
    }
  }
  __syncwarp();
  __threadfence_block();
  return lp;
}

// Unlocks buffer p after its tuples were moved out: the signal is reset before the slots, so a writer
// that takes slot 0 counts into a zeroed signal.
__device__ __forceinline__ void release_buffer(const SharedBuffers& b, unsigned p) {
  __syncwarp();  // every lane has read the buffer
  if (threadIdx.x % kWarp == 0) {
    atomicExch(&b.signal[p], 0);
    __threadfence_block();
    atomicExch(&b.slots[p], 0);
  }
  __syncwarp();
}

// Runs the fill phase for one tuple per lane (done lanes carry none) until every lane stored its tuple,
// calling flush(p) with the warp holding the lock of full buffer p. flush must end with release_buffer.
template <typename Flush>
__device__ __forceinline__ void fill_phase(const SharedBuffers& b, unsigned p, Tuple t, bool done, Flush flush) {
  while (true) {
    int pos;
    const unsigned owners = fill_round(b, p, t, done, pos);
    if (owners != 0) {
      flush(elect_flush(b, owners, p, pos));
    } else if (__all_sync(kFullMask, done)) {
      return;
    } else {
      __nanosleep(64);  // another warp flushes the buffer this lane waits for
    }
  }
}

// Tuples in buffer p once the fill phase is over (after __syncthreads).
__device__ __forceinline__ int buffered(const SharedBuffers& b, int p) { return min(b.slots[p], b.size); }

}  // namespace radix
