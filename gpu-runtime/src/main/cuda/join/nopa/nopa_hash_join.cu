// Kernels of NopaHashJoin (org.spillway.gpu.join.nopa): the no-partitioning hash join (NOPA) of Lutz et al., "Pump Up
// the Volume" (SIGMOD 2020). The host streams R and S chunk by chunk; per chunk one launch of
//   nopa_build_lp_stats  inserts R into a linear-probing table sized for |R| and gathers R's key statistics (min,
//                        max, non-NULL rows, rows with key -1) in the same pass, where that table fits GPU memory;
//   nopa_linear_probing_to_perfect  then moves it into NOPA's array table in GPU memory if the keys are dense;
//   nopa_key_stats + nopa_build_*   otherwise: the statistics first (they size and place the table), then R;
//   nopa_probe_*         looks S's rows up and fuses the output into count and sums, or appends row pairs.
// The table is one logical array of 16-byte {key, value} entries. Its first gpu_slots entries live in device
// memory and the rest in mapped pinned host memory: the hybrid table of Sec. 5.3 by software indirection, with
// the all-GPU and the all-host table as special cases. Two table kinds share it:
//   perfect:         NOPA's array join, key k at slot k - min (dense unique keys),
//   linear probing:  multiply-shift hash (LinearProbingTable's multiplier and slot), probe step +1, duplicates
//                    in separate slots, a probe runs on past a match until an empty slot.
// The key -1 marks an empty slot, so build rows whose key is -1 go to a side list (as LinearProbingTable).
#include <cstdint>

#include "block_primitives.cuh"

namespace {

using u64 = unsigned long long;
using i64 = long long;

using spillway::kFullMask;
using spillway::Max;
using spillway::Min;
using spillway::Sum;
using spillway::block_reduce;
constexpr int kWarp = spillway::kWarpSize;
constexpr u64 kEmpty = ~0ull;
constexpr u64 kMultiplier = 0x9E3779B97F4A7C15ull;

// Where a row's value comes from; NopaKernels.java holds the same numbers.
enum ValueMode : int { VALUE_ROW = 0, VALUE_I32 = 1, VALUE_I64 = 2, VALUE_ZERO = 3 };
// org.spillway.gpu.join.JoinType in declaration order.
enum JoinKind : int { INNER = 0, LEFT_OUTER = 1, SEMI = 2, ANTI = 3 };

// One chunk of one side, as the transfer pipeline hands it over: keys, their validity bitmap (Arrow layout,
// null: no NULLs) and what each row carries into the output (its row number or its payload).
template <typename Key>
struct Chunk {
  const Key* keys;
  const unsigned char* validity;
  const void* payloads;
  int value_mode;
  u64 first_row;
  u64 rows;

  __device__ __forceinline__ bool valid(u64 i) const { return spillway::is_valid(validity, i); }
  __device__ __forceinline__ i64 key(u64 i) const { return static_cast<i64>(keys[i]); }
  __device__ __forceinline__ i64 value(u64 i) const {
    switch (value_mode) {
      case VALUE_ROW: return static_cast<i64>(first_row + i);
      case VALUE_I32: return static_cast<const int*>(payloads)[i];
      case VALUE_I64: return static_cast<const i64*>(payloads)[i];
      default: return 0;
    }
  }
};

// The entry array: slots [0, gpu_slots) in device memory, the rest in mapped host memory.
struct Entries {
  u64* gpu;
  u64* host;
  u64 gpu_slots;

  __device__ __forceinline__ u64* at(u64 s) const { return s < gpu_slots ? gpu + 2 * s : host + 2 * (s - gpu_slots); }
  __device__ __forceinline__ ulonglong2 load(u64 s) const { return *reinterpret_cast<const ulonglong2*>(at(s)); }
};

// Values of the build rows whose key is -1, the empty marker; count is the capacity while building.
struct SideList {
  i64* values;
  u64* cursor;
  u64 count;

  __device__ __forceinline__ void append(i64 value) const {
    const u64 at = atomicAdd(cursor, 1ull);
    if (at < count) values[at] = value;
  }
};

// Where the lookup of one probe key stands: the next slot, or the next side-list entry for key -1.
struct Cursor {
  u64 slot;
  u64 side;
  bool done;
};

struct Table {
  Entries entries;
  u64 slots;
  int log_slots;
  i64 min;
  SideList side;
};

// Both table kinds: home(key) is where a key's entry (perfect) or its probe sequence (linear probing) starts.
template <bool kPerfect>
struct NopaTable : Table {
  __device__ __forceinline__ u64 home(i64 key) const {
    return kPerfect ? static_cast<u64>(key - min) : (static_cast<u64>(key) * kMultiplier) >> (64 - log_slots);
  }

  // Claims a slot for (key, value) by CAS on the key word, then stores the value (nobody reads before the
  // build ends). The perfect table has one slot per key: finding it taken means the keys are not unique. Linear
  // probing reads a slot before trying it, since most slots of a cluster are taken; the array table's slot is
  // almost always free, so it goes straight to the CAS.
  __device__ __forceinline__ void insert(i64 key, i64 value, unsigned* duplicate) const {
    u64 s = home(key);
    while (true) {
      u64* e = entries.at(s);
      if ((kPerfect || e[0] == kEmpty) && atomicCAS(e, kEmpty, static_cast<u64>(key)) == kEmpty) {
        e[1] = static_cast<u64>(value);
        return;
      }
      if (kPerfect) {
        *duplicate = 1;
        return;
      }
      s = (s + 1) & (slots - 1);
    }
  }

  __device__ __forceinline__ Cursor start(i64 key) const {
    const u64 s = home(key);
    return Cursor{s, 0, kPerfect && key != -1 && s >= slots};  // perfect: keys outside [min, max] miss at once
  }

  // Moves to the next build row matching key; false once there is none (the cursor is then done).
  __device__ __forceinline__ bool next(i64 key, Cursor& c, i64* value) const {
    if (c.done) return false;
    if (key == -1) {
      if (c.side < side.count) {
        *value = side.values[c.side++];
        return true;
      }
      c.done = true;
      return false;
    }
    while (true) {
      const ulonglong2 e = entries.load(c.slot);
      if (kPerfect || e.x == kEmpty) c.done = true;
      if (e.x == static_cast<u64>(key)) {
        c.slot = (c.slot + 1) & (slots - 1);
        *value = static_cast<i64>(e.y);
        return true;
      }
      if (c.done) return false;
      c.slot = (c.slot + 1) & (slots - 1);
    }
  }
};

// Fused join-aggregate output: per-thread count and wrapping sums, one atomic per block and value.
struct AggregateSink {
  u64* out;
  u64 count = 0;
  u64 build_sum = 0;
  u64 probe_sum = 0;

  __device__ __forceinline__ void pair_if(bool emit, i64 build_value, i64 probe_value) {
    if (emit) {
      count++;
      build_sum += static_cast<u64>(build_value);
      probe_sum += static_cast<u64>(probe_value);
    }
  }
  __device__ __forceinline__ void probe_only_if(bool emit, i64 probe_value) {
    if (emit) {
      count++;
      probe_sum += static_cast<u64>(probe_value);
    }
  }
  __device__ __forceinline__ void finish() {
    const u64 c = block_reduce(count, Sum(), 0ull);
    const u64 b = block_reduce(build_sum, Sum(), 0ull);
    const u64 p = block_reduce(probe_sum, Sum(), 0ull);
    if (threadIdx.x == 0) {
      atomicAdd(out, c);
      atomicAdd(out + 1, b);
      atomicAdd(out + 2, p);
    }
  }
};

// Materialized output: (build row, probe row) pairs appended at a global cursor, one atomic per warp and round,
// so a warp's pairs land side by side. Pairs past capacity are dropped but still counted: the host sees the
// count exceed the capacity and runs the chunk again with room for all of them.
struct PairSink {
  int* build_rows;
  int* probe_rows;
  u64 capacity;
  u64* cursor;

  __device__ __forceinline__ void append_if(bool emit, i64 build_row, i64 probe_row) {
    const u64 at = spillway::warp_append(emit, cursor);
    if (emit && at < capacity) {
      build_rows[at] = static_cast<int>(build_row);
      probe_rows[at] = static_cast<int>(probe_row);
    }
  }
  __device__ __forceinline__ void pair_if(bool emit, i64 build_row, i64 probe_row) {
    append_if(emit, build_row, probe_row);
  }
  __device__ __forceinline__ void probe_only_if(bool emit, i64 probe_row) { append_if(emit, -1, probe_row); }
  __device__ __forceinline__ void finish() {}
};

// Statistics of the keys one thread saw (min, max, non-NULL rows, rows with key -1); flush adds a block's share
// to the global ones with one atomic per value. Every thread of the block must flush.
struct KeyStats {
  i64 lo = INT64_MAX;
  i64 hi = INT64_MIN;
  u64 rows = 0;
  u64 minus_ones = 0;

  __device__ __forceinline__ void add(i64 k) {
    lo = min(lo, k);
    hi = max(hi, k);
    rows++;
    minus_ones += k == -1;
  }
  __device__ __forceinline__ void flush(i64* stats) {
    lo = block_reduce(lo, Min(), static_cast<i64>(INT64_MAX));
    hi = block_reduce(hi, Max(), static_cast<i64>(INT64_MIN));
    rows = block_reduce(rows, Sum(), 0ull);
    minus_ones = block_reduce(minus_ones, Sum(), 0ull);
    if (threadIdx.x == 0) {
      atomicMin(stats, lo);
      atomicMax(stats + 1, hi);
      atomicAdd(reinterpret_cast<u64*>(stats + 2), rows);
      atomicAdd(reinterpret_cast<u64*>(stats + 3), minus_ones);
    }
  }
};

template <typename Key>
__device__ __forceinline__ void key_stats(const Chunk<Key>& r, i64* stats) {
  KeyStats ks;
  const u64 stride = static_cast<u64>(gridDim.x) * blockDim.x;
  for (u64 i = blockIdx.x * static_cast<u64>(blockDim.x) + threadIdx.x; i < r.rows; i += stride) {
    if (r.valid(i)) ks.add(r.key(i));
  }
  ks.flush(stats);
}

// Build: every valid row of R into the table (key -1 into the side list); with kStats the same pass gathers the
// key statistics, so a speculative linear-probing build needs no pass of its own over R's keys.
template <typename Key, bool kPerfect, bool kStats>
__device__ __forceinline__ void build(const Chunk<Key>& r, const NopaTable<kPerfect>& table, unsigned* duplicate,
                                      i64* stats) {
  KeyStats ks;
  const u64 stride = static_cast<u64>(gridDim.x) * blockDim.x;
  for (u64 i = blockIdx.x * static_cast<u64>(blockDim.x) + threadIdx.x; i < r.rows; i += stride) {
    if (!r.valid(i)) continue;
    const i64 key = r.key(i);
    const i64 value = r.value(i);
    if (kStats) ks.add(key);
    if (key == -1) {
      table.side.append(value);
    } else {
      table.insert(key, value, duplicate);
    }
  }
  if (kStats) ks.flush(stats);
}

// Probe: every row of S against the table, then what its join type emits for it (JoinType.finishProbeRow).
// A warp walks its rows together and each lane hands at most one match per round to the sink, so the
// materializing sink can write a warp's pairs with one atomic.
template <typename Key, bool kPerfect, typename Sink>
__device__ __forceinline__ void probe(const Chunk<Key>& s, const NopaTable<kPerfect>& table, int join_type,
                                      Sink& sink) {
  const bool existence_only = join_type == SEMI || join_type == ANTI;
  const u64 lane = threadIdx.x % kWarp;
  const u64 stride = static_cast<u64>(gridDim.x) * blockDim.x;
  for (u64 base = blockIdx.x * static_cast<u64>(blockDim.x) + threadIdx.x - lane; base < s.rows; base += stride) {
    const u64 i = base + lane;
    const bool live = i < s.rows;
    const bool valid = live && s.valid(i);
    const i64 key = valid ? s.key(i) : 0;
    const i64 probe_value = live ? s.value(i) : 0;
    Cursor cursor = valid ? table.start(key) : Cursor{0, 0, true};
    u64 matches = 0;
    while (true) {
      i64 build_value = 0;
      const bool hit = table.next(key, cursor, &build_value);
      if (!__any_sync(kFullMask, hit)) break;
      matches += hit;
      if (existence_only) cursor.done = true;  // the first match settles SEMI and ANTI
      sink.pair_if(hit && !existence_only, build_value, probe_value);
    }
    const bool probe_only = live && ((join_type == LEFT_OUTER && matches == 0) || (join_type == SEMI && matches > 0)
                                     || (join_type == ANTI && matches == 0));
    sink.probe_only_if(probe_only, probe_value);
  }
  sink.finish();
}

template <bool kPerfect>
__device__ __forceinline__ NopaTable<kPerfect> table_of(u64* gpu, u64* host, u64 gpu_slots, u64 slots, int log_slots,
                                                        i64 min, i64* side_values, u64* side_cursor, u64 side_count) {
  NopaTable<kPerfect> t;
  t.entries = Entries{gpu, host, gpu_slots};
  t.slots = slots;
  t.log_slots = log_slots;
  t.min = min;
  t.side = SideList{side_values, side_cursor, side_count};
  return t;
}

}  // namespace

// Sets count 8-byte words to the empty key (all ones).
extern "C" __global__ void nopa_fill_empty(u64* words, u64 count) {
  const u64 stride = static_cast<u64>(gridDim.x) * blockDim.x;
  for (u64 i = blockIdx.x * static_cast<u64>(blockDim.x) + threadIdx.x; i < count; i += stride) words[i] = kEmpty;
}

// Moves the entries of a linear-probing table that lies wholly in device memory (lp_slots entries) and its side
// list into the array table given by the table parameters; sets *duplicate if a key turns up twice. This turns a
// speculative linear-probing build into NOPA's array table without reading R over the link again.
extern "C" __global__ void nopa_linear_probing_to_perfect(const ulonglong2* lp, u64 lp_slots, const i64* lp_side,
                                                         u64 *gpu, u64 *host, u64 gpu_slots, u64 slots,
                                                         int log_slots, i64 min, i64 *side_values,
                                                         u64 *side_cursor, u64 side_count, unsigned* duplicate) {
  const NopaTable<true> table = table_of<true>(gpu, host, gpu_slots, slots, log_slots, min, side_values, side_cursor,
                                               side_count);
  const u64 stride = static_cast<u64>(gridDim.x) * blockDim.x;
  const u64 tid = blockIdx.x * static_cast<u64>(blockDim.x) + threadIdx.x;
  for (u64 s = tid; s < lp_slots; s += stride) {
    const ulonglong2 e = lp[s];
    if (e.x != kEmpty) table.insert(static_cast<i64>(e.x), static_cast<i64>(e.y), duplicate);
  }
  if (tid < side_count) side_values[tid] = lp_side[tid];
}

#define CHUNK_PARAMS(Key) const Key *keys, const unsigned char *validity, const void *payloads, int value_mode, \
    u64 first_row, u64 rows
#define CHUNK_OF(Key) Chunk<Key>{keys, validity, payloads, value_mode, first_row, rows}
#define TABLE_PARAMS u64 *gpu, u64 *host, u64 gpu_slots, u64 slots, int log_slots, i64 min, i64 *side_values, \
    u64 *side_cursor, u64 side_count
#define TABLE_OF(perfect) table_of<perfect>(gpu, host, gpu_slots, slots, log_slots, min, side_values, side_cursor, \
    side_count)

#define STATS_KERNEL(suffix, Key)                                                                           \
  extern "C" __global__ void nopa_key_stats_##suffix(CHUNK_PARAMS(Key), i64* stats) {                      \
    key_stats(CHUNK_OF(Key), stats);                                                                        \
  }

#define BUILD_KERNEL(table_name, perfect, suffix, Key)                                                      \
  extern "C" __global__ void nopa_build_##table_name##_##suffix(CHUNK_PARAMS(Key), TABLE_PARAMS,           \
                                                                unsigned* duplicate) {                     \
    build<Key, perfect, false>(CHUNK_OF(Key), TABLE_OF(perfect), duplicate, nullptr);                       \
  }

#define BUILD_STATS_KERNEL(suffix, Key)                                                                     \
  extern "C" __global__ void nopa_build_lp_stats_##suffix(CHUNK_PARAMS(Key), TABLE_PARAMS,                \
                                                          unsigned* duplicate, i64* stats) {               \
    build<Key, false, true>(CHUNK_OF(Key), TABLE_OF(false), duplicate, stats);                              \
  }

#define PROBE_KERNELS(table_name, perfect, suffix, Key)                                                     \
  extern "C" __global__ void nopa_probe_##table_name##_agg_##suffix(CHUNK_PARAMS(Key), int join_type,      \
                                                                    TABLE_PARAMS, u64* aggregate) {        \
    AggregateSink sink{aggregate};                                                                          \
    probe(CHUNK_OF(Key), TABLE_OF(perfect), join_type, sink);                                               \
  }                                                                                                         \
  extern "C" __global__ void nopa_probe_##table_name##_pairs_##suffix(                                      \
      CHUNK_PARAMS(Key), int join_type, TABLE_PARAMS, int* build_rows, int* probe_rows, u64 capacity,      \
      u64* cursor) {                                                                                        \
    PairSink sink{build_rows, probe_rows, capacity, cursor};                                                \
    probe(CHUNK_OF(Key), TABLE_OF(perfect), join_type, sink);                                               \
  }

#define NOPA_KERNELS(suffix, Key)                \
  STATS_KERNEL(suffix, Key)                      \
  BUILD_KERNEL(perfect, true, suffix, Key)       \
  BUILD_KERNEL(lp, false, suffix, Key)           \
  BUILD_STATS_KERNEL(suffix, Key)                \
  PROBE_KERNELS(perfect, true, suffix, Key)      \
  PROBE_KERNELS(lp, false, suffix, Key)

NOPA_KERNELS(i32, int)
NOPA_KERNELS(i64, i64)
