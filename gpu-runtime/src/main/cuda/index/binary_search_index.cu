// Binary search over the sorted column (org.spillway.gpu.index.BinarySearchIndex): one thread per probe key, over
// the launch's slots of the probe keys (probe_slots).
#include "index/sorted_key_column.cuh"

extern "C" __global__ void binary_search_lookup(const void* keys, long long rows, int wide, const long long* probes,
                                                unsigned long long count, const unsigned* partition_ends,
                                                int first_partition, int end_partition, long long* out) {
  KeyColumn column{keys, rows, wide};
  const ProbeSlots slots = probe_slots(count, partition_ends, first_partition, end_partition);
  for (unsigned long long i = slots.begin + blockIdx.x * (unsigned long long) blockDim.x + threadIdx.x;
       i < slots.end; i += (unsigned long long) gridDim.x * blockDim.x) {
    out[i] = find_in_column(column, 0, rows, probes[i]);
  }
}
