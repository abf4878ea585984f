// Binary search over the sorted column (org.spillway.gpu.index.BinarySearchIndex): one thread per probe key.
#include "index/sorted_key_column.cuh"

extern "C" __global__ void binary_search_lookup(const void* keys, long long rows, int wide, const long long* probes,
                                                unsigned long long count, long long* out) {
  KeyColumn column{keys, rows, wide};
  for (unsigned long long i = blockIdx.x * (unsigned long long) blockDim.x + threadIdx.x; i < count;
       i += (unsigned long long) gridDim.x * blockDim.x) {
    out[i] = find_in_column(column, 0, rows, probes[i]);
  }
}
