// Kernels of TritonJoin's join phase (org.spillway.gpu.join.triton.TritonJoin; Lutz et al., SIGMOD '22, Sec. 5),
// run per first-pass partition pair on one of two streams:
//   triton_transform  pass-2 prefix sum: copies the partition's regions out of the paged partition array
//                     (over the link for spilled pages) into a contiguous GPU buffer and counts its
//                     sub-partitions per block;
//   triton_scan       turns those counts into the SharedPartitioner's offsets, sub-partition bounds and
//                     the work items of oversized sub-partitions;
//   triton_join       bucket-chaining hash join in shared memory per sub-partition (2048 heads, 16-bit
//                     links, atomicExch insert; Sioulas et al., ICDE '19, Sec. III-B);
//   triton_join_overflow / triton_join_finish
//                     sub-partitions whose build side exceeds the table: hash-based block nested loops
//                     (the build side in table-sized pieces, each probed by chunks of the probe side),
//                     then the probe rows whose outcome depends on all pieces (LEFT OUTER, SEMI, ANTI).
#include "radix_partitioning.cuh"

namespace {

using radix::Tuple;
constexpr int kHeads = 2048;
constexpr int kHeadBits = 11;
constexpr unsigned kEnd = 0xffff;  // end of a bucket chain; tables hold at most 65535 rows
enum JoinType { kInner = 0, kLeftOuter = 1, kSemi = 2, kAnti = 3 };  // JoinType ordinals

// Where join output goes: pairs of row ids appended to pinned host memory through one atomic cursor
// (materialized), or a count and two payload sums per thread, added up per block (aggregated).
struct Output {
  int materialize;
  unsigned long long* cursor;
  int* build_rows;
  int* probe_rows;
  long long capacity;  // pairs the arrays hold; the cursor counts on past it so the host can retry
  unsigned long long* totals;  // count, build sum, probe sum
};

struct Totals {
  unsigned long long count = 0, build = 0, probe = 0;
};

// Emits one output row per lane where `has` (warp-collective; build -1 for probe-only rows).
__device__ __forceinline__ void emit(const Output& o, Totals& acc, bool has, long long build, bool probe_only,
                                     long long probe) {
  if (!o.materialize) {
    if (has) {
      acc.count++;
      acc.build += probe_only ? 0 : static_cast<unsigned long long>(build);
      acc.probe += static_cast<unsigned long long>(probe);
    }
    return;
  }
  const unsigned long long at = spillway::warp_append(has, o.cursor);
  if (has && at < static_cast<unsigned long long>(o.capacity)) {
    o.build_rows[at] = probe_only ? -1 : static_cast<int>(build);
    o.probe_rows[at] = static_cast<int>(probe);
  }
}

__device__ __forceinline__ void add_totals(const Output& o, Totals acc) {
  if (o.materialize) return;
  acc.count = spillway::warp_reduce(acc.count, spillway::Sum());
  acc.build = spillway::warp_reduce(acc.build, spillway::Sum());
  acc.probe = spillway::warp_reduce(acc.probe, spillway::Sum());
  if (threadIdx.x % radix::kWarp == 0 && acc.count != 0) {
    atomicAdd(&o.totals[0], acc.count);
    atomicAdd(&o.totals[1], acc.build);
    atomicAdd(&o.totals[2], acc.probe);
  }
}

// The bucket-chaining table of one block in dynamic shared memory.
struct Table {
  long long* keys;
  long long* values;
  unsigned* heads;
  unsigned short* links;
  int shift;  // B1 + B2: the bucket takes the next 11 hash bits

  __device__ static Table in_shared(unsigned char* smem, int capacity, int shift) {
    long long* keys = reinterpret_cast<long long*>(smem);
    long long* values = keys + capacity;
    unsigned* heads = reinterpret_cast<unsigned*>(values + capacity);
    return Table{keys, values, heads, reinterpret_cast<unsigned short*>(heads + kHeads), shift};
  }

  // Loads rows [0, n) of `build` and links them into their buckets. Ends with a barrier.
  __device__ void build(const Tuple* rows, int n) {
    for (int i = threadIdx.x; i < kHeads; i += blockDim.x) heads[i] = kEnd;
    __syncthreads();
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
      const Tuple t = rows[i];
      keys[i] = t.x;
      values[i] = t.y;
      links[i] = static_cast<unsigned short>(atomicExch(&heads[radix::digit(t.x, shift, kHeadBits)], i));
    }
    __syncthreads();
  }

  // Probes rows [0, n) of `probe` (warp-collective loop). Pairs go to `o` for INNER and LEFT OUTER;
  // probe-only rows go to `o` too unless `matched` is given, which instead records which rows matched
  // (the overflow path, where one row meets several table pieces).
  __device__ void probe(const Tuple* rows, int n, int type, const Output& o, Totals& acc,
                        unsigned char* matched) const {
    const int lane = threadIdx.x % radix::kWarp;
    const bool existence = type == kSemi || type == kAnti;
    const int stride = blockDim.x;
    for (int base = threadIdx.x - lane; base < n; base += stride) {
      const int row = base + lane;
      const bool active = row < n;
      const Tuple t = active ? rows[row] : make_longlong2(0, 0);
      unsigned e = active ? heads[radix::digit(t.x, shift, kHeadBits)] : kEnd;
      bool searching = active;
      int matches = 0;
      while (__any_sync(radix::kFullMask, searching)) {
        bool hit = false;
        long long value = 0;
        if (searching) {
          while (e != kEnd) {
            const unsigned at = e;
            e = links[at];
            if (keys[at] == t.x) {
              hit = true;
              value = values[at];
              break;
            }
          }
          searching = hit && e != kEnd && !existence;
        }
        matches += hit;
        if (!existence) emit(o, acc, hit, value, false, t.y);
      }
      if (matched != nullptr) {
        if (active && matches > 0) matched[row] = 1;
      } else {
        const bool unmatched_out = (type == kLeftOuter || type == kAnti) && matches == 0;
        emit(o, acc, active && (unmatched_out || (type == kSemi && matches > 0)), -1, true, t.y);
      }
    }
  }
};

__device__ __forceinline__ int upper_bound(const int* sorted, int n, int value) {
  int lo = 0, hi = n;
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (sorted[mid] <= value) lo = mid + 1; else hi = mid;
  }
  return lo;
}

__device__ __forceinline__ int upper_bound(const long long* sorted, int n, long long value) {
  int lo = 0, hi = n;
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (sorted[mid] <= value) lo = mid + 1; else hi = mid;
  }
  return lo;
}

}  // namespace

// Pass-2 prefix sum and transform. The partition's rows are the concatenation of its regions: region b
// holds rows [prefix[b], prefix[b + 1]) and starts at tuple region_offsets[b] of the partition array.
// Block b2 copies rows [b2 * chunk, (b2 + 1) * chunk) to `staging` and counts them into
// hist[q * gridDim.x + b2] by the sub-partition q of hash bits [shift, shift + bits).
// Dynamic shared memory: 4 * (regions + 1 + (1 << bits)) bytes.
extern "C" __global__ void __launch_bounds__(1024) triton_transform(const unsigned long long* pages, int log_page,
                                            const long long* region_offsets, const int* prefix, int regions,
                                            int rows, Tuple* staging, int* hist, int shift, int bits) {
  extern __shared__ int shared_ints[];
  int* bounds = shared_ints;
  int* counts = shared_ints + regions + 1;
  for (int i = threadIdx.x; i <= regions; i += blockDim.x) bounds[i] = prefix[i];
  for (int i = threadIdx.x; i < (1 << bits); i += blockDim.x) counts[i] = 0;
  __syncthreads();
  const radix::PagedArray in{pages, log_page};
  const int chunk = (rows + gridDim.x - 1) / gridDim.x;
  const int begin = min(rows, static_cast<int>(blockIdx.x) * chunk);
  const int end = min(rows, begin + chunk);
  constexpr int kUnroll = 4;
  for (int base = begin + threadIdx.x; base < end; base += kUnroll * blockDim.x) {
    Tuple t[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; u++) {
      const int row = base + u * blockDim.x;
      if (row < end) {
        const int region = upper_bound(bounds, regions + 1, row) - 1;
        t[u] = *in.at(region_offsets[region] + (row - bounds[region]));
      }
    }
#pragma unroll
    for (int u = 0; u < kUnroll; u++) {
      const int row = base + u * blockDim.x;
      if (row < end) {
        staging[row] = t[u];
        atomicAdd(&counts[radix::digit(t[u].x, shift, bits)], 1);
      }
    }
  }
  __syncthreads();
  for (int q = threadIdx.x; q < (1 << bits); q += blockDim.x) hist[q * gridDim.x + blockIdx.x] = counts[q];
}

// One block: offsets of every (sub-partition, block) region for both sides, the sub-partition bounds
// (sub[q] .. sub[q + 1]) and, per sub-partition whose build side exceeds `capacity`, its work items
// (build pieces x probe chunks) as an exclusive prefix sum items[0 .. fanout].
extern "C" __global__ void __launch_bounds__(1024) triton_scan(
    const int* hist_build, const int* hist_probe, int fanout, int blocks, int* off_build, int* off_probe,
    int* sub_build, int* sub_probe, int capacity, int probe_chunk, long long* items) {
  __shared__ long long partial[1025];
  __shared__ int partial_int[1025];
  const long long n = static_cast<long long>(fanout) * blocks;
  spillway::block_exclusive_scan<int>(off_build, n, [&](long long i) { return hist_build[i]; }, partial_int);
  for (int q = threadIdx.x; q < fanout; q += blockDim.x) sub_build[q] = off_build[static_cast<long long>(q) * blocks];
  if (threadIdx.x == 0) sub_build[fanout] = partial_int[blockDim.x];
  __syncthreads();
  spillway::block_exclusive_scan<int>(off_probe, n, [&](long long i) { return hist_probe[i]; }, partial_int);
  for (int q = threadIdx.x; q < fanout; q += blockDim.x) sub_probe[q] = off_probe[static_cast<long long>(q) * blocks];
  if (threadIdx.x == 0) sub_probe[fanout] = partial_int[blockDim.x];
  __syncthreads();
  auto work = [&](long long q) -> long long {
    const long long r = sub_build[q + 1] - sub_build[q];
    const long long s = sub_probe[q + 1] - sub_probe[q];
    if (r <= capacity || s == 0) return 0;
    return ((r + capacity - 1) / capacity) * ((s + probe_chunk - 1) / probe_chunk);
  };
  spillway::block_exclusive_scan<long long>(items, fanout, work, partial);
  if (threadIdx.x == 0) items[fanout] = partial[blockDim.x];
}

// The join of every sub-partition pair whose build side fits the table (grid-stride over sub-partitions).
// Dynamic shared memory: 18 * capacity + 8192 bytes.
extern "C" __global__ void triton_join(const Tuple* build, const int* sub_build, const Tuple* probe,
                                       const int* sub_probe, int fanout, int shift, int capacity, int type,
                                       int materialize, unsigned long long* cursor, int* build_rows,
                                       int* probe_rows, long long out_capacity, unsigned long long* totals) {
  extern __shared__ __align__(16) unsigned char smem[];
  const Output o{materialize, cursor, build_rows, probe_rows, out_capacity, totals};
  Table table = Table::in_shared(smem, capacity, shift);
  Totals acc;
  for (int q = blockIdx.x; q < fanout; q += gridDim.x) {
    const int r = sub_build[q + 1] - sub_build[q];
    const int s = sub_probe[q + 1] - sub_probe[q];
    if (s == 0 || r > capacity || (r == 0 && (type == kInner || type == kSemi))) continue;
    table.build(build + sub_build[q], r);
    table.probe(probe + sub_probe[q], s, type, o, acc, nullptr);
    __syncthreads();  // the next sub-partition overwrites the table
  }
  add_totals(o, acc);
}

// Hash-based block nested loops over the oversized sub-partitions' work items (grid-stride): item
// (q, piece, chunk) builds the table from build rows [piece * capacity, ...) of q and probes probe rows
// [chunk * probe_chunk, ...) of q. `matched` (one byte per probe row of the pass-2 output, zero on
// entry) records matches for triton_join_finish when the join type needs them.
extern "C" __global__ void triton_join_overflow(const Tuple* build, const int* sub_build, const Tuple* probe,
                                                const int* sub_probe, int fanout, int shift, int capacity,
                                                int probe_chunk, const long long* items, int type,
                                                unsigned char* matched, int materialize,
                                                unsigned long long* cursor, int* build_rows, int* probe_rows,
                                                long long out_capacity, unsigned long long* totals) {
  extern __shared__ __align__(16) unsigned char smem[];
  const Output o{materialize, cursor, build_rows, probe_rows, out_capacity, totals};
  Table table = Table::in_shared(smem, capacity, shift);
  Totals acc;
  const long long total = items[fanout];
  for (long long item = blockIdx.x; item < total; item += gridDim.x) {
    const int q = upper_bound(items, fanout + 1, item) - 1;
    const int s = sub_probe[q + 1] - sub_probe[q];
    const long long chunks = (s + probe_chunk - 1) / probe_chunk;
    const long long local = item - items[q];
    const int piece = static_cast<int>(local / chunks);
    const int chunk = static_cast<int>(local % chunks);
    const int r = sub_build[q + 1] - sub_build[q];
    table.build(build + sub_build[q] + piece * capacity, min(capacity, r - piece * capacity));
    const int first = sub_probe[q] + chunk * probe_chunk;
    table.probe(probe + first, min(probe_chunk, s - chunk * probe_chunk), type == kInner ? kInner : type, o, acc,
                type == kInner ? nullptr : matched + first);
    __syncthreads();
  }
  add_totals(o, acc);
}

// The probe rows of oversized sub-partitions whose output needed every build piece: unmatched rows for
// LEFT OUTER and ANTI, matched ones for SEMI. Clears `matched` for the next partition.
extern "C" __global__ void triton_join_finish(const int* sub_build, const Tuple* probe, const int* sub_probe,
                                              int fanout, int capacity, int type, unsigned char* matched,
                                              int materialize, unsigned long long* cursor, int* build_rows,
                                              int* probe_rows, long long out_capacity,
                                              unsigned long long* totals) {
  const Output o{materialize, cursor, build_rows, probe_rows, out_capacity, totals};
  Totals acc;
  const int lane = threadIdx.x % radix::kWarp;
  for (int q = blockIdx.x; q < fanout; q += gridDim.x) {
    const int r = sub_build[q + 1] - sub_build[q];
    const int s = sub_probe[q + 1] - sub_probe[q];
    if (r <= capacity || s == 0) continue;
    for (int base = threadIdx.x - lane; base < s; base += blockDim.x) {
      const int row = sub_probe[q] + base + lane;
      const bool active = base + lane < s;
      const bool hit = active && matched[row] != 0;
      if (active) matched[row] = 0;
      const bool out = active && (type == kSemi ? hit : !hit);
      emit(o, acc, out, -1, true, active ? probe[row].y : 0);
    }
  }
  add_totals(o, acc);
}
