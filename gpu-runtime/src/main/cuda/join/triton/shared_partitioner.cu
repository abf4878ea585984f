// Kernel of SharedPartitioner (org.spillway.gpu.join.triton.SharedPartitioner): the Triton join's second
// partitioning pass, GPU memory to GPU memory (Lutz et al., SIGMOD '22, Sec. 4.2, Fig. 8). The buffers
// in shared memory are shared by all warps of a block; a warp that finds a buffer full takes its lock
// and copies it to the buffer's region of the output.
#include "radix_partitioning.cuh"

using radix::Tuple;

// Partitions rows [block * chunk, (block + 1) * chunk) of `in` on hash bits [shift, shift + bits).
// offsets[p * gridDim.x + block] is where region (block, p)'s data starts in `out` (partition-major,
// as triton_scan writes them); with `padded` each region has 128 bytes of padding in front and every
// flush but the last starts on a 128-byte boundary. Dynamic shared memory: fanout * (16 * l1_size + 12).
extern "C" __global__ void __launch_bounds__(1024) shared_partition(
    const Tuple* in, int rows, int chunk, const int* offsets, Tuple* out, int shift, int bits, int l1_size,
    int padded) {
  extern __shared__ __align__(16) unsigned char smem[];
  const int fanout = 1 << bits;
  const int warps = blockDim.x / radix::kWarp;
  const int warp = threadIdx.x / radix::kWarp;
  const int lane = threadIdx.x % radix::kWarp;
  Tuple* tuples = reinterpret_cast<Tuple*>(smem);
  int* cursor = reinterpret_cast<int*>(tuples + fanout * l1_size);
  int* slots = cursor + fanout;
  radix::SharedBuffers l1{tuples, slots, slots + fanout, l1_size};

  for (int p = threadIdx.x; p < fanout; p += blockDim.x) {
    cursor[p] = static_cast<int>(radix::init_buffer(l1, p, offsets[p * gridDim.x + blockIdx.x], padded != 0));
  }
  __syncthreads();

  const int begin = blockIdx.x * chunk;
  const int end = min(rows, begin + chunk);
  for (int base = begin + warp * radix::kWarp; base < end; base += warps * radix::kWarp) {
    const int row = base + lane;
    const bool live = row < end;
    const Tuple t = live ? in[row] : make_longlong2(0, 0);
    const unsigned p = radix::digit(t.x, shift, bits);
    radix::fill_phase(l1, p, t, !live, [&](unsigned full) {
      const int at = cursor[full];
      for (int i = lane; i < l1_size; i += radix::kWarp) out[at + i] = tuples[full * l1_size + i];
      __syncwarp();
      if (lane == 0) cursor[full] = at + l1_size;
      radix::release_buffer(l1, full);
    });
  }
  __syncthreads();

  for (int p = warp; p < fanout; p += warps) {
    const int n = radix::buffered(l1, p);
    for (int i = lane; i < n; i += radix::kWarp) out[cursor[p] + i] = tuples[p * l1_size + i];
  }
}
