// Does atomicCAS / atomicAdd from the GPU on mapped pinned host memory behave atomically among GPU threads on
// this PCIe link (HOST_NATIVE_ATOMIC_SUPPORTED = 0)? Linear-probing claims of 2^16 threads on 2^12 distinct keys
// into 2^17 host slots, plus one contended counter; the host checks every claim is unique and complete.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>
__global__ void claim(unsigned long long* slots, unsigned long long mask, unsigned long long* counter, unsigned long long* claimed, int n, int sys) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned long long key = (unsigned long long)(i % 4096);
  unsigned long long s = (key * 0x9E3779B97F4A7C15ull) >> (64 - 17);
  unsigned long long tag = ((unsigned long long)i << 1) | 0;  // unique per thread, never ~0
  while (true) {
    unsigned long long old = sys ? atomicCAS_system(slots + s, ~0ull, tag) : atomicCAS(slots + s, ~0ull, tag);
    if (old == ~0ull) { claimed[i] = s; break; }
    s = (s + 1) & mask;
  }
  if (sys) atomicAdd_system(counter, 1ull); else atomicAdd(counter, 1ull);
}
int main() {
  int attr = -1; cudaDeviceGetAttribute(&attr, cudaDevAttrHostNativeAtomicSupported, 0);
  int pageable = -1; cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, 0);
  printf("HostNativeAtomicSupported=%d PageableMemoryAccess=%d\n", attr, pageable);
  const int n = 1 << 16; const unsigned long long slots = 1ull << 17;
  for (int sys = 0; sys < 2; sys++) {
    for (int rep = 0; rep < 3; rep++) {
      unsigned long long *h, *d, *counter, *claimed;
      cudaHostAlloc(&h, slots * 8, cudaHostAllocMapped); cudaHostGetDevicePointer(&d, h, 0);
      cudaHostAlloc(&counter, 8, cudaHostAllocMapped); unsigned long long* dc; cudaHostGetDevicePointer(&dc, counter, 0);
      for (unsigned long long j = 0; j < slots; j++) h[j] = ~0ull;
      *counter = 0;
      cudaMalloc(&claimed, n * 8);
      cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
      cudaEventRecord(a);
      claim<<<(n + 255) / 256, 256>>>(d, slots - 1, dc, claimed, n, sys);
      cudaEventRecord(b);
      cudaError_t e = cudaDeviceSynchronize();
      float ms = 0; cudaEventElapsedTime(&ms, a, b);
      std::vector<unsigned long long> c(n); cudaMemcpy(c.data(), claimed, n * 8, cudaMemcpyDeviceToHost);
      long bad = 0, present = 0;
      for (int i = 0; i < n; i++) if (h[c[i]] != ((unsigned long long)i << 1)) bad++;
      for (unsigned long long j = 0; j < slots; j++) present += h[j] != ~0ull;
      printf("%s rep %d: %s, counter %llu (want %d), slots taken %ld (want %d), claims overwritten %ld, %.1f ms\n",
             sys ? "atomicCAS_system" : "atomicCAS", rep, cudaGetErrorString(e), *counter, n, present, n, bad, ms);
      cudaFree(claimed); cudaFreeHost(h); cudaFreeHost(counter);
    }
  }
  return 0;
}
