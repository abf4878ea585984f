// The sorted key column every index kernel ends its lookup in (org.spillway.gpu.index.SortedKeyColumn): 4- or
// 8-byte keys in pinned host memory, read over the link zero-copy, compared as signed 64-bit numbers, and the
// branch-free lower bound the kernels search it and the indexes' own key regions with; and the slots of the probe
// keys one launch of an index kernel looks up (ProbeSlots).
#pragma once
#include "block_primitives.cuh"

struct KeyColumn {
  const void* keys;
  long long rows;
  int wide;  // 1: 8-byte keys, 0: 4-byte keys

  __host__ __device__ __forceinline__ long long key(long long row) const {
    return wide ? static_cast<const long long*>(keys)[row] : static_cast<const int*>(keys)[row];
  }
};

// The first i in [from, to) whose value read(i) is at least key, or to. Halves without a branch, so the threads of
// a warp take the same number of steps whatever their keys.
template <typename Read>
__host__ __device__ __forceinline__ long long lower_bound(long long from, long long to, long long key, Read read) {
  long long base = from;
  long long length = to - from;
  if (length <= 0) return from;
  while (length > 1) {
    long long half = length >> 1;
    base = read(base + half - 1) < key ? base + half : base;
    length -= half;
  }
  return read(base) < key ? base + 1 : base;
}

// The row of key within [from, to) of the column, or -1.
__host__ __device__ __forceinline__ long long find_in_column(const KeyColumn& column, long long from, long long to,
                                                    long long key) {
  long long row = lower_bound(from, to, key, [&](long long i) { return column.key(i); });
  return row < to && column.key(row) == key ? row : -1;
}

// True when key lies outside the column's keys (or the column is empty): no index holds it.
__host__ __device__ __forceinline__ bool outside(const KeyColumn& column, long long min_key, long long max_key,
                                        long long key) {
  return column.rows == 0 || key < min_key || key > max_key;
}

// The slots [begin, end) of the probe keys one launch of an index kernel looks up. Without `partition_ends`, all
// `count` of them. With it, the slots of partitions [first_partition, end_partition) of a radix-partitioned window
// (org.spillway.gpu.join.inlj.TranslationSlices): partition_ends[p] is the slot after partition p's last key, which
// the window's scatter left in its cursors on the same stream, so the host launches a window's slices one after
// another without reading its histogram back.
struct ProbeSlots {
  unsigned long long begin;
  unsigned long long end;
};

__host__ __device__ __forceinline__ ProbeSlots probe_slots(unsigned long long count, const unsigned* partition_ends,
                                                           int first_partition, int end_partition) {
  if (partition_ends == nullptr) return {0, count};
  const unsigned long long begin = first_partition == 0 ? 0 : partition_ends[first_partition - 1];
  const unsigned long long end = end_partition == 0 ? 0 : partition_ends[end_partition - 1];
  return {begin, end < count ? end : count};
}
