// RadixSpline (org.spillway.gpu.index.RadixSpline): a thread takes kLookupsInFlight probe keys at a time; for each it
// reads the radix table, searches the slot's spline points and interpolates between the two around the key, then
// reads the column at the estimates of all of them before it waits on any (estimate, then finish). Radix
// table and spline points are in GPU memory where GpuIndexLookup copied them there (else read over the link like
// the column), so the column's lines are what a lookup reads over the link: the estimate's line answers a key that
// is there or (with its neighbour) one in a gap; otherwise the search walks the error bound's window a 128-byte line
// at a time from the estimate's, and searches within the line that holds the key, so that a lookup whose key lies
// within a line of its estimate reads one or two lines, not the three or four of a binary search over the window
// of 2 * max_error + 2 keys. A key the rounding put outside that window is searched for beside it, as on the CPU.
// A launch looks up its slots of the probe keys (probe_slots): all of them, or one slice of a partitioned window.
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

// A lookup's spline estimate: the segment [lo, hi) of rows around the key and the row guessed in it; `row` is the
// answer where the estimate alone gave it (a spline point's key, or -1 for a key outside the column), else kUnknown.
struct Estimate {
  long long lo;
  long long hi;
  long long guess;
  long long row;
};
constexpr long long kUnknown = -2;

__host__ __device__ __forceinline__ Estimate estimate(const KeyColumn& column, const long long* table,
                                                      const long long* point_keys, const long long* point_rows,
                                                      long long points, int shift, long long min_key,
                                                      long long max_key, long long key) {
  if (outside(column, min_key, max_key, key)) return {0, 0, 0, -1};
  const unsigned long long slot = (unsigned long long) (key - min_key) >> shift;
  const long long end = table[slot + 1] + 1 < points ? table[slot + 1] + 1 : points;
  const long long up = lower_bound(table[slot], end, key, [&](long long p) { return point_keys[p]; });
  const long long hi = point_rows[up];
  if (point_keys[up] == key) return {0, 0, 0, hi};
  const long long down_key = point_keys[up - 1];
  const long long lo = point_rows[up - 1] + 1;  // rows lo - 1 and hi are the segment's points, keys below and above
  const long long guess = (long long) ((lo - 1) + (double) (unsigned long long) (key - down_key) * (hi - lo + 1)
                                       / (double) (unsigned long long) (point_keys[up] - down_key));
  return {lo, hi, guess, kUnknown};
}

// Lookups a thread keeps in flight: a lookup waits on the link for its first read of the column, and a thread that
// issues the reads of several lookups before it waits on any keeps the link's requests coming.
constexpr int kLookupsInFlight = 4;

// Whether the lookup reads the column at its estimate first (the guess lies inside its segment).
__host__ __device__ __forceinline__ bool reads_guess(const Estimate& e) {
  return e.row == kUnknown && e.guess >= e.lo && e.guess < e.hi;
}

// The row of `key` in the column, or -1, from its estimate and, where reads_guess, the key `at` the guessed row.
__host__ __device__ __forceinline__ long long finish(const KeyColumn& column, const Estimate& e, int max_error,
                                                     long long key, long long at) {
  if (e.row != kUnknown) return e.row;
  const long long lo = e.lo, hi = e.hi, guess = e.guess;
  if (reads_guess(e)) {
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

// The row of `key` in the column, or -1.
__host__ __device__ __forceinline__ long long find(const KeyColumn& column, const long long* table,
                                                   const long long* point_keys, const long long* point_rows,
                                                   long long points, int shift, int max_error, long long min_key,
                                                   long long max_key, long long key) {
  const Estimate e = estimate(column, table, point_keys, point_rows, points, shift, min_key, max_key, key);
  return finish(column, e, max_error, key, reads_guess(e) ? column.key(e.guess) : 0);
}

}  // namespace radix_spline

extern "C" __global__ void radix_spline_lookup(const void* keys, long long rows, int wide, const long long* table,
                                               const long long* point_keys, const long long* point_rows,
                                               long long points, int shift, int max_error, long long min_key,
                                               long long max_key, const long long* probes, unsigned long long count,
                                               const unsigned* partition_ends, int first_partition,
                                               int end_partition, long long* out) {
  constexpr int kInFlight = radix_spline::kLookupsInFlight;
  const KeyColumn column{keys, rows, wide};
  // A block takes kInFlight * blockDim.x neighbouring keys of the partitioned window at a time, so the lookups in
  // flight read the same stretch of the column as one lookup per thread would (its pages' translations stay cached).
  const ProbeSlots slots = probe_slots(count, partition_ends, first_partition, end_partition);
  const unsigned long long step = (unsigned long long) kInFlight * blockDim.x;
  for (unsigned long long base = slots.begin + blockIdx.x * step; base < slots.end; base += gridDim.x * step) {
    radix_spline::Estimate e[kInFlight];
    long long key[kInFlight];
    long long at[kInFlight];
#pragma unroll
    for (int j = 0; j < kInFlight; j++) {
      const unsigned long long i = base + j * blockDim.x + threadIdx.x;
      key[j] = i < slots.end ? probes[i] : 0;
      e[j] = i < slots.end ? radix_spline::estimate(column, table, point_keys, point_rows, points, shift, min_key,
                                                    max_key, key[j])
                           : radix_spline::Estimate{0, 0, 0, -1};
    }
#pragma unroll
    for (int j = 0; j < kInFlight; j++) {
      at[j] = radix_spline::reads_guess(e[j]) ? column.key(e[j].guess) : 0;
    }
#pragma unroll
    for (int j = 0; j < kInFlight; j++) {
      const unsigned long long i = base + j * blockDim.x + threadIdx.x;
      if (i < slots.end) out[i] = radix_spline::finish(column, e[j], max_error, key[j], at[j]);
    }
  }
}
