// RadixSpline (org.spillway.gpu.index.RadixSpline): one thread per probe key reads the radix table, searches the
// slot's spline points, interpolates between the two around the key and reads the column at the estimate. Radix
// table and spline points are in GPU memory where GpuIndexLookup copied them there (else read over the link like
// the column), so the column's lines are what a lookup reads over the link: the estimate's line answers a key that
// is there or (with its neighbour) one in a gap; otherwise the search walks the error bound's window a 128-byte line
// at a time from the estimate's, and searches within the line that holds the key, so that a lookup whose key lies
// within a line of its estimate reads one or two lines, not the three or four of a binary search over the window
// of 2 * max_error + 2 keys. A key the rounding put outside that window is searched for beside it, as on the CPU.
#include "index/sorted_key_column.cuh"

namespace radix_spline {

constexpr unsigned long long kLineBytes = 128;

__host__ __device__ __forceinline__ long long clamp(long long v, long long lo, long long hi) {
  return v < lo ? lo : v > hi ? hi : v;
}

// The first row of the 128-byte line that holds row `row` of the column (the column need not start on a line).
__host__ __device__ __forceinline__ long long line_first_row(const KeyColumn& column, long long row) {
  const unsigned long long width = column.wide ? 8 : 4;
  const unsigned long long address = reinterpret_cast<unsigned long long>(column.keys) + row * width;
  return row - static_cast<long long>((address % kLineBytes) / width);
}

// The row of `key` in the column, or -1.
__host__ __device__ __forceinline__ long long find(const KeyColumn& column, const long long* table,
                                                   const long long* point_keys, const long long* point_rows,
                                                   long long points, int shift, int max_error, long long min_key,
                                                   long long max_key, long long key) {
  if (outside(column, min_key, max_key, key)) return -1;
  const unsigned long long slot = (unsigned long long) (key - min_key) >> shift;
  const long long end = table[slot + 1] + 1 < points ? table[slot + 1] + 1 : points;
  const long long up = lower_bound(table[slot], end, key, [&](long long p) { return point_keys[p]; });
  const long long hi = point_rows[up];
  if (point_keys[up] == key) return hi;
  const long long down_key = point_keys[up - 1];
  const long long lo = point_rows[up - 1] + 1;  // rows lo - 1 and hi are the segment's points, keys below and above
  const long long guess = (long long) ((lo - 1) + (double) (unsigned long long) (key - down_key) * (hi - lo + 1)
                                       / (double) (unsigned long long) (point_keys[up] - down_key));
  if (guess >= lo && guess < hi) {
    const long long at = column.key(guess);
    if (at == key) return guess;
    const long long neighbour = column.key(at < key ? guess + 1 : guess - 1);
    if (at < key ? neighbour > key : neighbour < key) return -1;
  }
  const long long from = clamp(guess - max_error, lo, hi);
  const long long to = clamp(guess + max_error + 2, lo, hi);
  if (from >= to) return find_in_column(column, lo, hi, key);
  // [first, last): the part of the window in one line, from the estimate's towards the key, never turning back (a
  // key between two lines' keys is in no row)
  const long long per_line = static_cast<long long>(kLineBytes) / (column.wide ? 8 : 4);
  const long long line = line_first_row(column, clamp(guess, from, to - 1));
  long long first = line > from ? line : from;
  long long last = line + per_line < to ? line + per_line : to;
  int direction = 0;
  while (true) {
    if (direction <= 0 && first > from && key < column.key(first)) {
      direction = -1;
      last = first;
      first = clamp(line_first_row(column, first - 1), from, to);
    } else if (direction >= 0 && last < to && key > column.key(last - 1)) {
      direction = 1;
      first = last;  // a line's first row
      last = first + per_line < to ? first + per_line : to;
    } else {
      break;
    }
  }
  if (key < column.key(first)) {  // below the window (the rounding's doing, or a key in no row) or in a gap
    return direction > 0 || first == lo ? -1 : find_in_column(column, lo, first, key);
  }
  if (key > column.key(last - 1)) {
    return direction < 0 || last == hi ? -1 : find_in_column(column, last, hi, key);
  }
  return find_in_column(column, first, last, key);
}

}  // namespace radix_spline

extern "C" __global__ void radix_spline_lookup(const void* keys, long long rows, int wide, const long long* table,
                                               const long long* point_keys, const long long* point_rows,
                                               long long points, int shift, int max_error, long long min_key,
                                               long long max_key, const long long* probes, unsigned long long count,
                                               long long* out) {
  const KeyColumn column{keys, rows, wide};
  for (unsigned long long i = blockIdx.x * (unsigned long long) blockDim.x + threadIdx.x; i < count;
       i += (unsigned long long) gridDim.x * blockDim.x) {
    out[i] = radix_spline::find(column, table, point_keys, point_rows, points, shift, max_error, min_key, max_key,
                                probes[i]);
  }
}
