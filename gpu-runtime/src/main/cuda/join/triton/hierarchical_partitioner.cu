// Kernels of HierarchicalPartitioner (org.spillway.gpu.join.triton.HierarchicalPartitioner): the Triton join's
// prefix sum and first partitioning pass (Lutz et al., SIGMOD '22, Sec. 4.3). Both read a relation's
// columns (key, optional payload, optional validity) from pinned mapped host memory over the link; block b
// handles rows [b * chunk, (b + 1) * chunk). The pass writes 16-byte {key, value} tuples into the paged
// partition array, each (block, partition) region at the offset the prefix sum gave it.
#include "radix_partitioning.cuh"

namespace {

using radix::Tuple;
constexpr int kHistogramBits = 10;  // HierarchicalPartitioner.HISTOGRAM_BITS: the largest B1

// A tile of 32 rows read by one warp, one row per lane.
struct Row {
  long long key;
  long long value;
  bool live;  // inside the block's chunk and not NULL
};

__device__ __forceinline__ Row load_row(const void* keys, int key_wide, const void* payloads, int payload_wide,
                                        const unsigned char* validity, long long row, long long end) {
  Row r{0, 0, false};
  if (row < end && spillway::is_valid(validity, row)) {
    r.key = radix::load_int(keys, key_wide, row);
    r.value = payloads == nullptr ? row : radix::load_int(payloads, payload_wide, row);
    r.live = true;
  }
  return r;
}

// Where the block's L2 buffers (the second level, in GPU memory) and its flush state live.
struct Level2 {
  Tuple* pool;           // (fanout + warps) buffers of `size` tuples, this block's share
  int size;              // tuples per L2 buffer, a multiple of the L1 buffer size
  int* fill;             // [fanout] tuples in partition p's current L2 buffer
  int* buffer;           // [fanout] index of partition p's current L2 buffer in the pool
  long long* cursor;     // [fanout] next output tuple of partition p's region
  int* spare;            // [warps] each warp's spare buffer: the double buffering of Sec. 4.3
};

// L1 eviction and, when the L2 buffer fills, L2 flush (Fig. 9). The warp holds the lock of buffer p.
__device__ __forceinline__ void evict(const radix::SharedBuffers& l1, const Level2& l2, unsigned p,
                                      const radix::PagedArray& out) {
  const int lane = threadIdx.x % radix::kWarp;
  const int warp = threadIdx.x / radix::kWarp;
  const int buffer = l2.buffer[p];
  const int fill = l2.fill[p];
  Tuple* level2 = l2.pool + static_cast<long long>(buffer) * l2.size;
  for (int i = lane; i < l1.size; i += radix::kWarp) level2[fill + i] = l1.tuples[p * l1.size + i];
  if (fill + l1.size < l2.size) {
    __syncwarp();
    if (lane == 0) l2.fill[p] = fill + l1.size;
    __threadfence_block();  // the evicted tuples are visible to the next lock holder
    radix::release_buffer(l1, p);
    return;
  }
  // The L2 buffer is full: swap in this warp's spare, release the lock, then flush outside it.
  const long long at = l2.cursor[p];
  __syncwarp();
  if (lane == 0) {
    l2.buffer[p] = l2.spare[warp];
    l2.fill[p] = 0;
    l2.cursor[p] = at + l2.size;
    l2.spare[warp] = buffer;
  }
  __threadfence_block();
  radix::release_buffer(l1, p);
  for (int i = lane; i < l2.size; i += radix::kWarp) *out.at(at + i) = level2[i];
}

}  // namespace

// Prefix-sum pass: histogram of the top kHistogramBits hash bits of the non-NULL keys of each block's
// chunk, written to hist[block][1 << kHistogramBits]; the host coarsens it to B1 bits.
extern "C" __global__ void hierarchical_histogram(const void* keys, int key_wide, const unsigned char* validity,
                                                  long long rows, long long chunk, int* hist) {
  __shared__ int counts[1 << kHistogramBits];
  for (int i = threadIdx.x; i < (1 << kHistogramBits); i += blockDim.x) counts[i] = 0;
  __syncthreads();
  const long long begin = blockIdx.x * chunk;
  const long long end = min(rows, begin + chunk);
  constexpr int kUnroll = 4;  // independent loads in flight per thread: the link's latency is long
  for (long long base = begin + threadIdx.x; base < end; base += kUnroll * blockDim.x) {
    long long key[kUnroll];
    bool live[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; u++) {
      const long long row = base + u * blockDim.x;
      live[u] = row < end && spillway::is_valid(validity, row);
      key[u] = live[u] ? radix::load_int(keys, key_wide, row) : 0;
    }
#pragma unroll
    for (int u = 0; u < kUnroll; u++) {
      if (live[u]) atomicAdd(&counts[radix::digit(key[u], 0, kHistogramBits)], 1);
    }
  }
  __syncthreads();
  for (int i = threadIdx.x; i < (1 << kHistogramBits); i += blockDim.x) {
    hist[static_cast<long long>(blockIdx.x) * (1 << kHistogramBits) + i] = counts[i];
  }
}

// First partitioning pass (Hierarchical). offsets[block * fanout + p] is where region (block, p)'s data
// starts in the partition array; l1_size tuples per shared-memory buffer (>= 8, a power of two), l2_size
// per GPU-memory buffer (a multiple of l1_size); l2_pool holds gridDim.x * (fanout + warps) L2 buffers.
// Dynamic shared memory: fanout * (16 * l1_size + 24) + 4 * warps bytes.
extern "C" __global__ void __launch_bounds__(1024) hierarchical_partition(
    const void* keys, int key_wide, const void* payloads, int payload_wide, const unsigned char* validity,
    long long rows, long long chunk, const long long* offsets, const unsigned long long* pages, int log_page,
    int bits, int l1_size, int l2_size, Tuple* l2_pool) {
  extern __shared__ __align__(16) unsigned char smem[];
  const int fanout = 1 << bits;
  const int warps = blockDim.x / radix::kWarp;
  const int warp = threadIdx.x / radix::kWarp;
  const int lane = threadIdx.x % radix::kWarp;
  Tuple* tuples = reinterpret_cast<Tuple*>(smem);
  long long* cursor = reinterpret_cast<long long*>(tuples + fanout * l1_size);
  int* slots = reinterpret_cast<int*>(cursor + fanout);
  radix::SharedBuffers l1{tuples, slots, slots + fanout, l1_size};
  Level2 l2{l2_pool + static_cast<long long>(blockIdx.x) * (fanout + warps) * l2_size, l2_size,
            slots + 2 * fanout, slots + 3 * fanout, cursor, slots + 4 * fanout};
  const radix::PagedArray out{pages, log_page};

  for (int p = threadIdx.x; p < fanout; p += blockDim.x) {
    cursor[p] = radix::init_buffer(l1, p, offsets[static_cast<long long>(blockIdx.x) * fanout + p], true);
    l2.fill[p] = 0;
    l2.buffer[p] = p;
  }
  for (int w = threadIdx.x; w < warps; w += blockDim.x) l2.spare[w] = fanout + w;
  __syncthreads();

  const long long begin = blockIdx.x * chunk;
  const long long end = min(rows, begin + chunk);
  // Each warp takes tiles of 32 rows round-robin and reads its next tile before partitioning this one,
  // so that a load over the link is always in flight.
  long long base = begin + warp * radix::kWarp;
  Row next = load_row(keys, key_wide, payloads, payload_wide, validity, base + lane, end);
  while (base < end) {
    const Row row = next;
    base += static_cast<long long>(warps) * radix::kWarp;
    next = load_row(keys, key_wide, payloads, payload_wide, validity, base + lane, end);
    const unsigned p = radix::digit(row.key, 0, bits);
    radix::fill_phase(l1, p, make_longlong2(row.key, row.value), !row.live,
                      [&](unsigned full) { evict(l1, l2, full, out); });
  }
  __syncthreads();

  // Final flush: each region's L2 buffer, then its L1 buffer, end exactly at the region's last tuple.
  for (int p = warp; p < fanout; p += warps) {
    const int fill = l2.fill[p];
    const int total = fill + radix::buffered(l1, p);
    const Tuple* level2 = l2.pool + static_cast<long long>(l2.buffer[p]) * l2_size;
    for (int i = lane; i < total; i += radix::kWarp) {
      *out.at(cursor[p] + i) = i < fill ? level2[i] : tuples[p * l1_size + i - fill];
    }
  }
}
