// Host-side check of the GPU RadixSpline lookup (radix_spline::find in src/main/cuda/index/radix_spline.cu) against a
// binary search of the keys: key layouts (evenly spaced, random gaps, runs like TPC-H's order keys, rare jumps),
// 4- and 8-byte keys, columns that do not start on a 128-byte line, error bounds from 0 to 100, probes that hit,
// fall in gaps or lie outside the keys. Needs nvcc, no GPU:
//   nvcc -std=c++17 -I gpu-runtime/src/main/cuda -o /tmp/rs gpu-runtime/src/test/cuda/index/radix_spline_host_check.cu
//   /tmp/rs
#include "index/radix_spline.cu"
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <random>
#include <algorithm>

// Spline points every `step` rows rather than the greedy corridor's: their interpolation may miss a key's row by more
// than the error bound, which the lookup must survive (it searches beside the window, as on the CPU).
int main() {
  std::mt19937_64 rng(42);
  long long checked = 0, failures = 0;
  for (int trial = 0; trial < 400; trial++) {
    int rows = 2 + rng() % 5000;
    int wide = trial % 2;
    int offsetBytes = (rng() % 32) * (wide ? 8 : 4);
    std::vector<unsigned char> mem(offsetBytes + rows * 8 + 256);
    std::vector<long long> keys(rows);
    long long k = (long long)(rng() % 1000) - 500;
    int shape = trial % 4;
    for (int r = 0; r < rows; r++) {
      keys[r] = k;
      // evenly spaced, random gaps, runs of 8 in every 32 (TPC-H's order keys), rare jumps
      k += shape == 0   ? 4
           : shape == 1 ? 1 + rng() % 7
           : shape == 2 ? ((r % 32) < 8 ? 1 : 25)
                        : 1 + (rng() % 100 == 0 ? 100000 : rng() % 3);
    }
    if (!wide) for (auto& x : keys) if (x > 2000000000LL) x = 2000000000LL;  // keep ints
    if (!wide) {
      bool sorted = true;
      for (int r = 1; r < rows; r++) sorted = sorted && keys[r] > keys[r - 1];
      if (!sorted) continue;
    }
    void* base = mem.data() + offsetBytes;
    for (int r = 0; r < rows; r++) {
      if (wide) ((long long*)base)[r] = keys[r]; else ((int*)base)[r] = (int)keys[r];
    }
    KeyColumn column{base, rows, wide};
    int step = 1 + rng() % 200;
    std::vector<long long> pk, pr;
    for (int r = 0; r < rows; r += step) { pr.push_back(r); pk.push_back(keys[r]); }
    if (pr.back() != rows - 1) { pr.push_back(rows - 1); pk.push_back(keys[rows - 1]); }
    long long min_key = keys[0], max_key = keys[rows - 1];
    int spanBits = 64 - __builtin_clzll((unsigned long long)(max_key - min_key) | 1);
    int bits = std::min(spanBits, 6);
    int shift = spanBits - bits;
    long long slots = (1LL << bits) + 1;
    std::vector<long long> table(slots + 1);
    long long points = pk.size();
    for (long long s = 0; s < slots + 1; s++) {
      // first point whose prefix >= s
      long long i = 0;
      while (i < points && (long long)((unsigned long long)(pk[i] - min_key) >> shift) < s) i++;
      table[s] = i;
    }
    int max_error = (int[]){0, 1, 3, 8, 32, 100}[rng() % 6];
    for (int q = 0; q < 3000; q++) {
      long long probe = keys[rng() % rows] + (long long)(rng() % 5) - 2;
      if (q % 50 == 0) probe = min_key - 1 - rng() % 3;
      if (q % 51 == 0) probe = max_key + rng() % 3;
      long long expected = -1;
      auto it = std::lower_bound(keys.begin(), keys.end(), probe);
      if (it != keys.end() && *it == probe) expected = it - keys.begin();
      long long got = radix_spline::find(column, table.data(), pk.data(), pr.data(), points, shift, max_error,
                                         min_key, max_key, probe);
      checked++;
      if (got != expected && failures++ < 10) {
        printf("trial %d rows %d wide %d step %d error %d key %lld: got %lld, expected %lld\n", trial, rows, wide,
               step, max_error, probe, got, expected);
      }
    }
  }
  printf("checked %lld, failures %lld\n", checked, failures);
  return failures != 0;
}
