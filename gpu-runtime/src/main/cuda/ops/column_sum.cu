// Kernels of ColumnSum (org.spillway.gpu.ops.GpuColumnSum): the reduction that consumes column chunks
// streamed by every transfer method. One launch per chunk; blocks reduce in registers and shared memory
// and add one partial per block into a single accumulator, so chunks on different streams may overlap.
#include <cstdint>

#include "block_primitives.cuh"

namespace {

__device__ __forceinline__ void accumulate(unsigned long long* out, long long v) {
  atomicAdd(out, static_cast<unsigned long long>(v));  // two's complement: wraps like Java long
}
__device__ __forceinline__ void accumulate(double* out, double v) { atomicAdd(out, v); }

template <typename Acc> __device__ __forceinline__ Acc lanes(int4 v) { return Acc(v.x) + v.y + v.z + v.w; }
template <typename Acc> __device__ __forceinline__ Acc lanes(longlong2 v) { return Acc(v.x) + v.y; }
template <typename Acc> __device__ __forceinline__ Acc lanes(double2 v) { return Acc(v.x) + v.y; }

// Sums n values of type T starting at data (aligned to sizeof(T)). The aligned middle is read with
// 16-byte vector loads, four independent ones in flight per thread, which is what zero-copy reads over
// PCIe need to reach link speed; the unaligned head and the tail are read one element per thread.
template <typename T, typename Vec, typename Acc, typename Out>
__device__ void column_sum(const T* __restrict__ data, unsigned long long n, Out* out) {
  constexpr unsigned kPerVec = sizeof(Vec) / sizeof(T);
  const unsigned long long tid = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  const uintptr_t misalign = reinterpret_cast<uintptr_t>(data) % sizeof(Vec);
  unsigned long long head = misalign == 0 ? 0 : (sizeof(Vec) - misalign) / sizeof(T);
  if (head > n) head = n;
  const Vec* __restrict__ vec = reinterpret_cast<const Vec*>(data + head);
  const unsigned long long nvec = (n - head) / kPerVec;

  Acc acc = 0;
  if (tid < head) acc += data[tid];
  unsigned long long i = tid;
  for (; i + 3 * stride < nvec; i += 4 * stride) {
    const Vec a = vec[i], b = vec[i + stride], c = vec[i + 2 * stride], d = vec[i + 3 * stride];
    acc += lanes<Acc>(a) + lanes<Acc>(b) + lanes<Acc>(c) + lanes<Acc>(d);
  }
  for (; i < nvec; i += stride) acc += lanes<Acc>(vec[i]);
  for (unsigned long long j = head + nvec * kPerVec + tid; j < n; j += stride) acc += data[j];

  acc = spillway::block_reduce(acc, spillway::Sum(), Acc(0));
  if (threadIdx.x == 0) accumulate(out, acc);
}

}  // namespace

extern "C" __global__ void column_sum_i32(const int* data, unsigned long long n, unsigned long long* out) {
  column_sum<int, int4, long long>(data, n, out);
}

extern "C" __global__ void column_sum_i64(const long long* data, unsigned long long n, unsigned long long* out) {
  column_sum<long long, longlong2, long long>(data, n, out);
}

extern "C" __global__ void column_sum_f64(const double* data, unsigned long long n, double* out) {
  column_sum<double, double2, double>(data, n, out);
}
