// Kernels of LinkProbe (org.spillway.gpu.calibrate.LinkProbe): reads and writes over the interconnect
// (or in device memory) at a given access granularity, sequential or random, for the machine profile; and random
// reads that sweep a buffer window by window (TranslationReachProbe).
#include <cstdint>

#include "block_primitives.cuh"

namespace {

// splitmix64 finalizer: spreads consecutive access numbers over the whole buffer, so no two accesses
// of a warp share a PCIe packet or a DRAM page.
__device__ __forceinline__ unsigned long long mix(unsigned long long x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

__device__ __forceinline__ unsigned long long read_bytes(const unsigned char* p, unsigned granularity) {
  if (granularity == 4) return *reinterpret_cast<const unsigned int*>(p);
  if (granularity == 8) return *reinterpret_cast<const unsigned long long*>(p);
  unsigned long long x = 0;
  for (unsigned b = 0; b < granularity; b += 16) {
    const uint4 v = *reinterpret_cast<const uint4*>(p + b);
    x ^= (static_cast<unsigned long long>(v.x) << 32 | v.y) ^ (static_cast<unsigned long long>(v.z) << 32 | v.w);
  }
  return x;
}

// XOR of v over the block, then one atomicXor per block into sink: the checksum of every byte read.
__device__ void xor_into(unsigned long long v, unsigned long long* sink) {
  v = spillway::block_reduce(v, spillway::Xor(), 0ull);
  if (threadIdx.x == 0) atomicXor(sink, v);
}

}  // namespace

// accesses reads of `granularity` bytes (4, 8 or a multiple of 16) from a buffer of slots * granularity
// bytes; slots is a power of two. Random: one thread reads the whole granule at slot mix(a) mod slots,
// as a hash-table probe would. Sequential: the same bytes in order, read as coalesced warps would read
// them (granules of 16 B and more as 16-byte vectors across the lanes). The XOR of all data read is
// XORed into sink: it keeps the loads alive and lets tests check what was read.
extern "C" __global__ void link_read(const unsigned char* base, unsigned long long slots, unsigned granularity,
                                     int random, unsigned long long accesses, unsigned long long* sink) {
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  const unsigned long long tid = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
  unsigned long long x = 0;
  if (!random && granularity >= 16) {
    const unsigned long long vectors = accesses * (granularity / 16);
    const unsigned long long mask = slots * (granularity / 16) - 1;
    const uint4* v = reinterpret_cast<const uint4*>(base);
    for (unsigned long long i = tid; i < vectors; i += stride) {
      const uint4 w = v[i & mask];
      x ^= (static_cast<unsigned long long>(w.x) << 32 | w.y) ^ (static_cast<unsigned long long>(w.z) << 32 | w.w);
    }
    accesses = 0;
  }
  for (unsigned long long a = tid; a < accesses; a += stride) {
    const unsigned long long slot = (random ? mix(a) : a) & (slots - 1);
    x ^= read_bytes(base + slot * granularity, granularity);
  }
  xor_into(x, sink);
}

// `accesses` random reads of `granularity` bytes over a buffer of `windows` consecutive windows of `window_slots`
// slots each (a power of two), the reads of window w after those of window w - 1: access a reads in window
// a / ceil(accesses / windows). With a grid-stride loop the threads' reads at any moment fall into one or two
// windows, so one launch sweeps the buffer with a bounded footprint, as a partitioned window's lookups sweep an index
// column.
extern "C" __global__ void link_read_sweep(const unsigned char* base, unsigned long long window_slots,
                                           unsigned long long windows, unsigned granularity,
                                           unsigned long long accesses, unsigned long long* sink) {
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  const unsigned long long per_window = (accesses + windows - 1) / windows;
  unsigned long long x = 0;
  for (unsigned long long a = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; a < accesses;
       a += stride) {
    const unsigned long long window = a / per_window;
    const unsigned long long slot = window * window_slots + (mix(a) & (window_slots - 1));
    x ^= read_bytes(base + slot * granularity, granularity);
  }
  xor_into(x, sink);
}

// Writes `bytes` (a multiple of 16) sequentially with 16-byte stores; measures writes to host memory.
extern "C" __global__ void link_write(unsigned char* base, unsigned long long bytes, unsigned seed) {
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  uint4* out = reinterpret_cast<uint4*>(base);
  for (unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; i < bytes / 16;
       i += stride) {
    const unsigned v = static_cast<unsigned>(i) ^ seed;
    out[i] = make_uint4(v, v + 1, v + 2, v + 3);
  }
}
