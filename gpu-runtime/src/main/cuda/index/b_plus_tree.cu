// The clustered B+-tree (org.spillway.gpu.index.BPlusTree): one thread per probe key walks the inner nodes (a
// count, then the keys, then the children of each node, node_longs 8-byte slots a node), a binary search per
// node, and ends in the column page the lowest level points to. A launch looks up its slots of the probe keys
// (probe_slots).
#include "index/sorted_key_column.cuh"

extern "C" __global__ void b_plus_tree_lookup(const void* keys, long long rows, int wide, const long long* nodes,
                                              long long node_longs, int fanout, int depth, long long page_rows,
                                              long long min_key, long long max_key, const long long* probes,
                                              unsigned long long count, const unsigned* partition_ends,
                                              int first_partition, int end_partition, long long* out) {
  KeyColumn column{keys, rows, wide};
  const ProbeSlots slots = probe_slots(count, partition_ends, first_partition, end_partition);
  for (unsigned long long i = slots.begin + blockIdx.x * (unsigned long long) blockDim.x + threadIdx.x;
       i < slots.end; i += (unsigned long long) gridDim.x * blockDim.x) {
    long long key = probes[i];
    long long row = -1;
    if (!outside(column, min_key, max_key, key)) {
      long long node = 0;
      for (int level = 0; level < depth; level++) {
        const long long* at = nodes + node * node_longs;
        long long entry = lower_bound(0, at[0], key, [&](long long e) { return at[1 + e]; });
        node = at[1 + fanout + entry];
      }
      long long end = node + page_rows < rows ? node + page_rows : rows;
      row = find_in_column(column, node, end, key);
    }
    out[i] = row;
  }
}
