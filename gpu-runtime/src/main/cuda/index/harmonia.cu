// Harmonia (org.spillway.gpu.index.Harmonia): a warp walks the tree for its 32 probe keys one after another, all
// lanes at once on each node: lane l compares the node's key l, and the ballot's count of keys below the probe
// key is the child slot (Harmonia's cooperative search, its sub-warp the whole warp). The column's stretch of 32
// rows at the bottom is searched the same way. A launch looks up its slots of the probe keys (probe_slots).
#include "index/sorted_key_column.cuh"

constexpr int kFanout = 32;

extern "C" __global__ void harmonia_lookup(const void* keys, long long rows, int wide, const long long* key_region,
                                           const long long* children, int depth, long long nodes, long long min_key,
                                           long long max_key, const long long* probes, unsigned long long count,
                                           const unsigned* partition_ends, int first_partition, int end_partition,
                                           long long* out) {
  KeyColumn column{keys, rows, wide};
  const ProbeSlots slots = probe_slots(count, partition_ends, first_partition, end_partition);
  const unsigned lane = threadIdx.x % 32;
  const unsigned long long warps = (unsigned long long) gridDim.x * blockDim.x / 32;
  for (unsigned long long first = slots.begin + (blockIdx.x * (unsigned long long) blockDim.x + threadIdx.x) / 32 * 32;
       first < slots.end; first += warps * 32) {
    unsigned long long mine = first + lane;
    long long own = mine < slots.end ? probes[mine] : 0;
    long long result = -1;
    for (unsigned j = 0; j < 32 && first + j < slots.end; j++) {
      long long key = __shfl_sync(0xffffffffu, own, j);
      if (outside(column, min_key, max_key, key)) continue;  // the same key in every lane: the warp stays together
      long long node = 0;
      for (int level = 0; level < depth; level++) {
        unsigned below = __ballot_sync(0xffffffffu, key_region[node * kFanout + lane] < key);
        node = children[node] + __popc(below);
      }
      long long row = (node - nodes) * kFanout + lane;
      unsigned hit = __ballot_sync(0xffffffffu, row < rows && column.key(row) == key);
      if (lane == j && hit != 0) result = (node - nodes) * kFanout + __ffs(hit) - 1;
    }
    if (mine < slots.end) out[mine] = result;
  }
}
