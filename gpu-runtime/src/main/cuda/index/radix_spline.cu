// RadixSpline (org.spillway.gpu.index.RadixSpline): one thread per probe key reads the radix table, searches the
// slot's spline points, interpolates between the two around the key, reads the column at the estimate and, unless
// the key is there or the estimate's neighbour shows that no row holds it, searches the column within the error
// bound; a key the rounding put outside that window is searched for beside it, as on the CPU. Radix table and spline
// points are in GPU memory where GpuIndexLookup copied them there, else read over the link like the column.
#include "index/sorted_key_column.cuh"

__device__ __forceinline__ long long clamp(long long v, long long lo, long long hi) {
  return v < lo ? lo : v > hi ? hi : v;
}

extern "C" __global__ void radix_spline_lookup(const void* keys, long long rows, int wide, const long long* table,
                                               const long long* point_keys, const long long* point_rows,
                                               long long points, int shift, int max_error, long long min_key,
                                               long long max_key, const long long* probes, unsigned long long count,
                                               long long* out) {
  KeyColumn column{keys, rows, wide};
  for (unsigned long long i = blockIdx.x * (unsigned long long) blockDim.x + threadIdx.x; i < count;
       i += (unsigned long long) gridDim.x * blockDim.x) {
    long long key = probes[i];
    if (outside(column, min_key, max_key, key)) {
      out[i] = -1;
      continue;
    }
    unsigned long long slot = (unsigned long long) (key - min_key) >> shift;
    long long end = table[slot + 1] + 1 < points ? table[slot + 1] + 1 : points;
    long long up = lower_bound(table[slot], end, key, [&](long long p) { return point_keys[p]; });
    long long hi = point_rows[up];
    if (point_keys[up] == key) {
      out[i] = hi;
      continue;
    }
    long long down_key = point_keys[up - 1];
    long long lo = point_rows[up - 1] + 1;
    long long guess = (long long) ((lo - 1) + (double) (unsigned long long) (key - down_key) * (hi - lo + 1)
                                   / (double) (unsigned long long) (point_keys[up] - down_key));
    // Where the spline's estimate is exact (evenly spaced keys), the key is at the estimate, and a key in a gap lies
    // between the estimate's row and its neighbour (rows lo - 1 and hi are the segment's points): either answer comes
    // from the estimate's line over the link, not from the three or four lines the search below reads in its window
    // of 2 * max_error + 2 keys.
    if (guess >= lo && guess < hi) {
      const long long at = column.key(guess);
      if (at == key) {
        out[i] = guess;
        continue;
      }
      const long long neighbour = column.key(at < key ? guess + 1 : guess - 1);
      if (at < key ? neighbour > key : neighbour < key) {
        out[i] = -1;
        continue;
      }
    }
    long long from = clamp(guess - max_error, lo, hi);
    long long to = clamp(guess + max_error + 2, lo, hi);
    long long row = lower_bound(from, to, key, [&](long long r) { return column.key(r); });
    if (row == from && from > lo && (from == hi || column.key(from) > key)) {
      row = lower_bound(lo, from, key, [&](long long r) { return column.key(r); });
    } else if (row == to && to < hi) {
      row = lower_bound(to, hi, key, [&](long long r) { return column.key(r); });
    }
    out[i] = row < hi && column.key(row) == key ? row : -1;
  }
}
