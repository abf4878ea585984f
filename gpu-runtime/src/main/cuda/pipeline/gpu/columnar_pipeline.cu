// Kernels of GpuColumnarPipeline (org.spillway.gpu.pipeline.gpu): a fused filter -> project -> aggregate pipeline,
// one launch per streamed chunk or per table of GPU-resident chunks. Each thread interprets the pipeline's
// register program (GpuProgram, pipeline_program.cuh) for its rows with SQL's three-valued logic: every
// register has a NULL flag (one bit of a 64-bit mask), NULL rows hold 0, filters keep only TRUE rows and
// aggregates skip NULLs. Under PREDICATION a row runs the whole program and its contribution is masked.
// Errors (overflow, division by zero) set one device error word that the host turns into the CPU
// backend's exception. Only aggregate state lives in device memory.
#include "pipeline_program.cuh"

using namespace spillway;

namespace {

constexpr int kMaxCalls = 16;
constexpr int kBlock = 256;
constexpr int kLocalSlots = 64;       // per-block pre-aggregation table of the grouped kernel
constexpr int kLocalProbes = 4;
constexpr unsigned long long kEmptyKey = ~0ull;

// Aggregate kinds; AggCall.Kind order.
enum Agg : int { AGG_SUM = 0, AGG_SUM0 = 1, AGG_COUNT = 2, AGG_MIN = 3, AGG_MAX = 4 };

__device__ __forceinline__ unsigned long long hash64(unsigned long long k) {
  k ^= k >> 33; k *= 0xff51afd7ed558ccdull; k ^= k >> 33; k *= 0xc4ceb9fe1a85ec53ull; k ^= k >> 33;
  return k;
}

__device__ __forceinline__ unsigned long long identity_of(int kind) {
  return kind == AGG_MIN ? 0x7fffffffffffffffull : kind == AGG_MAX ? 0x8000000000000000ull : 0ull;
}

// MIN or MAX, chosen per aggregate call: one block_reduce (one shared array) serves both.
struct MinOrMax {
  bool min_of;
  __device__ long long operator()(long long a, long long b) const { return min_of ? min(a, b) : max(a, b); }
};

// Block-wide MIN or MAX of a signed value (thread 0 holds it); every thread must call it.
__device__ __forceinline__ long long block_extreme(long long v, bool min_of) {
  return block_reduce(v, MinOrMax{min_of}, static_cast<long long>(identity_of(min_of ? AGG_MIN : AGG_MAX)));
}

struct Add128 {
  __device__ void operator()(unsigned long long& lo, long long& hi, unsigned long long olo, long long ohi) const {
    const unsigned long long sum = lo + olo;
    hi += ohi + (sum < lo ? 1 : 0);
    lo = sum;
  }
};

struct Extreme {
  bool min_of;
  __device__ void operator()(unsigned long long& lo, long long&, unsigned long long olo, long long) const {
    const long long a = static_cast<long long>(lo), b = static_cast<long long>(olo);
    lo = static_cast<unsigned long long>(min_of ? min(a, b) : max(a, b));
  }
};

// Adds the rows of a warp into their groups' accumulators: lane i's row (when `slot` >= 0) goes to the
// accumulators at acc (lo, hi and non-NULL count per call at stride `stride` words; a slot of a table) and adds
// one to *count. The lanes of one slot combine their values first and the lowest of them updates the slot, so a
// warp issues one atomic per slot and call, not one per row. Every lane of the warp must call it.
__device__ __forceinline__ void warp_accumulate(const ProgramArg& p, const Row& w, long long slot,
                                                unsigned long long* count, unsigned long long* acc,
                                                unsigned long long stride) {
  const unsigned peers = __match_any_sync(kFullMask, static_cast<unsigned long long>(slot));
  const bool leader = slot >= 0 && leads_peers(peers);
  if (leader) atomicAdd(count, static_cast<unsigned long long>(__popc(peers)));
  for (int c = 0; c < p.call_count; c++) {
    const int kind = p.calls[2 * c];
    const int reg = p.calls[2 * c + 1];
    if (kind == AGG_COUNT && reg < 0) continue;
    const bool take = slot >= 0 && !w.is_null(reg);
    const unsigned takers = __ballot_sync(kFullMask, take) & peers;
    unsigned long long* lo = acc + 3 * c * stride;
    if (kind == AGG_SUM || kind == AGG_SUM0) {
      const long long v = take ? w.r[reg] : 0;
      unsigned long long sum_lo = static_cast<unsigned long long>(v);
      long long sum_hi = v < 0 ? -1 : 0;
      warp_reduce_peers(peers, sum_lo, sum_hi, Add128{});
      if (leader && takers) atomic_add128(lo, lo + stride, sum_lo, sum_hi);
    } else if (kind == AGG_MIN || kind == AGG_MAX) {
      unsigned long long v = take ? static_cast<unsigned long long>(w.r[reg]) : identity_of(kind);
      long long unused = 0;
      warp_reduce_peers(peers, v, unused, Extreme{kind == AGG_MIN});
      if (leader && takers) {
        if (kind == AGG_MIN) atomicMin(reinterpret_cast<long long*>(lo), static_cast<long long>(v));
        else atomicMax(reinterpret_cast<long long*>(lo), static_cast<long long>(v));
      }
    }
    if (leader && takers && ((p.tracked_calls >> c) & 1)) atomicAdd(lo + 2 * stride, static_cast<unsigned long long>(__popc(takers)));
  }
}

// Finds or inserts key in an open-addressing table of `capacity` slots (a power of two) with linear probing,
// trying at most `probes` slots; returns the slot or -1. `inserted` counts the keys this call claimed.
__device__ __forceinline__ long long find_or_insert(unsigned long long* table, unsigned long long capacity,
                                                    unsigned long long key, unsigned long long probes,
                                                    unsigned long long* inserted) {
  unsigned long long slot = hash64(key) & (capacity - 1);
  for (unsigned long long i = 0; i < probes; i++) {
    const unsigned long long seen = table[slot];
    if (seen == key) return static_cast<long long>(slot);
    if (seen == kEmptyKey) {
      const unsigned long long old = atomicCAS(table + slot, kEmptyKey, key);
      if (old == kEmptyKey) { if (inserted) atomicAdd(inserted, 1ull); return static_cast<long long>(slot); }
      if (old == key) return static_cast<long long>(slot);
    }
    slot = (slot + 1) & (capacity - 1);
  }
  return -1;
}

// Longest probe sequence of the global table: at the half load the host allows, linear probing stays far
// below it, so reaching it means the table is overfull and the host must grow it.
constexpr unsigned long long kGlobalProbes = 4096;

// The global table's slot of a key (the key equal to the empty marker has the slot at index capacity); -1
// and the error word set when the table is full. Once more than half the slots are taken the pass is
// lost anyway (the host grows the table and runs it again), so every later row gives up at once instead
// of probing an ever fuller table.
__device__ __forceinline__ long long global_slot(unsigned long long* state, unsigned long long capacity,
                                                 unsigned long long key) {
  unsigned long long* table = state + 2;
  if (key == kEmptyKey) {
    if (atomicCAS(table + capacity, kEmptyKey, 0ull) == kEmptyKey) atomicAdd(state + 1, 1ull);
    return static_cast<long long>(capacity);
  }
  if (*reinterpret_cast<volatile unsigned long long*>(state + 1) * 2 > capacity) {
    fail(state, ERR_TABLE_FULL, 0);
    return -1;
  }
  const long long slot = find_or_insert(table, capacity, key, min(capacity, kGlobalProbes), state + 1);
  if (slot < 0) fail(state, ERR_TABLE_FULL, 0);
  return slot;
}

}  // namespace

// Sets every slot of the aggregate state to its identity: keys empty, counts and sums zero, MIN/MAX at the
// extreme values. Layout (words): error, groups, keys[slots], counts[slots], then per call lo[slots],
// hi[slots] (a 128-bit sum for SUM; the value for MIN and MAX) and nonnull[slots].
extern "C" __global__ void columnar_pipeline_init(unsigned long long* state, unsigned long long slots,
                                                  const int* __restrict__ calls, int call_count) {
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long s = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; s < slots;
       s += stride) {
    if (s == 0) { state[0] = 0; state[1] = 0; }
    state[2 + s] = kEmptyKey;
    state[2 + slots + s] = 0;
    for (int c = 0; c < call_count; c++) {
      unsigned long long* lo = state + 2 + (2 + 3 * c) * slots;
      lo[s] = identity_of(calls[2 * c]);
      lo[slots + s] = 0;
      lo[2 * slots + s] = 0;
    }
  }
}

// Global aggregate (no GROUP BY): per-thread accumulators in registers, one block reduction per call and
// one atomic per block and call.
extern "C" __global__ void __launch_bounds__(kBlock) columnar_pipeline_global(
    const __grid_constant__ ChunkArg chunk, const ChunkArg* __restrict__ table, long long table_count, unsigned long long table_tiles,
    const __grid_constant__ ProgramArg p, unsigned long long* state) {
  extern __shared__ uint4 text_shared[];
  __shared__ TextTile staged;
  const unsigned text_bytes = dynamic_shared_bytes();
  Row w;
  unsigned long long count = 0;
  unsigned long long lo[kMaxCalls];
  long long hi[kMaxCalls];
  unsigned long long nonnull[kMaxCalls];
  for (int c = 0; c < p.call_count; c++) {
    lo[c] = identity_of(p.calls[2 * c]);
    hi[c] = 0;
    nonnull[c] = 0;
  }
  for_each_tile<kBlock>(chunk, table, table_count, table_tiles, [&](const ChunkArg& ch, unsigned long long first) {
    if (text_bytes) stage_text<kBlock>(ch, first, &staged, text_shared, text_bytes);
    const unsigned long long row = first + threadIdx.x;
    if (row >= ch.rows) return;
    const bool keep = run_program(ch, p, row, w, state, text_bytes ? &staged : nullptr);
    count += keep;
    for (int c = 0; c < p.call_count; c++) {
      const int kind = p.calls[2 * c];
      const int reg = p.calls[2 * c + 1];
      if (reg < 0) continue;
      const bool take = keep && !w.is_null(reg);  // predication: no branch, the contribution is masked
      const long long v = take ? w.r[reg] : 0;
      if (kind == AGG_SUM || kind == AGG_SUM0) add128(lo[c], hi[c], v);
      else if (kind == AGG_MIN) lo[c] = take ? static_cast<unsigned long long>(min(static_cast<long long>(lo[c]), v)) : lo[c];
      else if (kind == AGG_MAX) lo[c] = take ? static_cast<unsigned long long>(max(static_cast<long long>(lo[c]), v)) : lo[c];
      nonnull[c] += take;
    }
  });
  const unsigned long long slots = 1;
  long long zero = 0;
  block_sum128<kBlock>(count, zero);
  if (threadIdx.x == 0 && count) atomicAdd(state + 2 + slots, count);
  for (int c = 0; c < p.call_count; c++) {
    const int kind = p.calls[2 * c];
    unsigned long long* acc = state + 2 + (2 + 3 * c) * slots;
    if (kind == AGG_MIN || kind == AGG_MAX) {
      const long long v = block_extreme(static_cast<long long>(lo[c]), kind == AGG_MIN);
      if (threadIdx.x == 0) {
        if (kind == AGG_MIN) atomicMin(reinterpret_cast<long long*>(acc), v);
        else atomicMax(reinterpret_cast<long long*>(acc), v);
      }
    } else if (kind != AGG_COUNT) {
      block_sum128<kBlock>(lo[c], hi[c]);
      if (threadIdx.x == 0) atomic_add128(acc, acc + slots, lo[c], hi[c]);
    }
    long long h = 0;
    block_sum128<kBlock>(nonnull[c], h);
    if (threadIdx.x == 0 && nonnull[c]) atomicAdd(acc + 2 * slots, nonnull[c]);
  }
}

// GROUP BY: the key registers are packed into one 64-bit key (32 or 64 bits each, NULL keys as 0 plus a
// flag bit), looked up in an open-addressing table of `capacity` slots with linear probing (atomicCAS
// claims an empty slot); the key that equals the empty marker has its own slot at index capacity. Each
// block first aggregates into a small table in shared memory (few groups, as in Q1, would otherwise make
// every row's atomics contend on a few words) and flushes it at the end; rows whose key finds no room
// there go to the global table directly.
extern "C" __global__ void __launch_bounds__(kBlock) columnar_pipeline_grouped(
    const __grid_constant__ ChunkArg chunk, const ChunkArg* __restrict__ table, long long table_count, unsigned long long table_tiles,
    const __grid_constant__ ProgramArg p, unsigned long long* state) {
  __shared__ unsigned long long local[(2 + 3 * kMaxCalls) * kLocalSlots];
  extern __shared__ uint4 text_shared[];
  __shared__ TextTile staged;
  const unsigned text_bytes = dynamic_shared_bytes();
  unsigned long long* local_keys = local;
  unsigned long long* local_counts = local + kLocalSlots;
  unsigned long long* local_acc = local + 2 * kLocalSlots;
  for (int s = threadIdx.x; s < kLocalSlots; s += blockDim.x) {
    local_keys[s] = kEmptyKey;
    local_counts[s] = 0;
    for (int c = 0; c < p.call_count; c++) {
      local_acc[3 * c * kLocalSlots + s] = identity_of(p.calls[2 * c]);
      local_acc[(3 * c + 1) * kLocalSlots + s] = 0;
      local_acc[(3 * c + 2) * kLocalSlots + s] = 0;
    }
  }
  __syncthreads();
  Row w;
  const unsigned long long capacity = static_cast<unsigned long long>(p.capacity);
  const unsigned long long slots = capacity + 1;
  // Warp-uniform: every lane reaches warp_accumulate, a row that is past the chunk or filtered out with no slot.
  for_each_tile<kBlock>(chunk, table, table_count, table_tiles, [&](const ChunkArg& ch, unsigned long long first) {
    if (text_bytes) stage_text<kBlock>(ch, first, &staged, text_shared, text_bytes);
    const unsigned long long row = first + threadIdx.x;
    const bool keep = row < ch.rows && run_program(ch, p, row, w, state, text_bytes ? &staged : nullptr);
    unsigned long long key = 0;
    bool in_range = true;
    for (int k = 0, shift = 0; keep && k < p.key_count; k++) {
      const int reg = p.keys[3 * k];
      const long long v = w.r[reg];
      const int bits = p.keys[3 * k + 1];
      if (bits == 64) {
        key |= static_cast<unsigned long long>(v);
      } else if (bits == 32) {
        in_range &= v == static_cast<int>(v);
        key |= static_cast<unsigned long long>(static_cast<unsigned>(static_cast<int>(v))) << shift;
        shift += 32;
      } else {  // packed by its range: the program left the value minus the range's low end
        in_range &= w.is_null(reg) || (v >= 0 && v < (1ll << bits));
        key |= (w.is_null(reg) ? 0ull : static_cast<unsigned long long>(v)) << shift;
        shift += bits;
      }
      if (w.is_null(reg) && p.keys[3 * k + 2] >= 0) key |= 1ull << p.keys[3 * k + 2];
    }
    if (keep && !in_range) fail(state, ERR_KEY_RANGE, 0);
    // A local slot s is target s; a global slot g is target kLocalSlots + g, so one match covers both tables.
    long long target = -1;
    if (keep && in_range) {
      const long long mine = key == kEmptyKey ? -1 : find_or_insert(local_keys, kLocalSlots, key, kLocalProbes, nullptr);
      const long long slot = mine >= 0 ? -1 : global_slot(state, capacity, key);
      target = mine >= 0 ? mine : slot >= 0 ? kLocalSlots + slot : -1;
    }
    const bool local_row = target >= 0 && target < kLocalSlots;
    const long long slot = local_row ? target : target - kLocalSlots;
    warp_accumulate(p, w, target, local_row ? local_counts + slot : state + 2 + slots + slot,
                    local_row ? local_acc + slot : state + 2 + 2 * slots + slot, local_row ? kLocalSlots : slots);
  });
  __syncthreads();
  for (int s = threadIdx.x; s < kLocalSlots; s += blockDim.x) {
    if (local_keys[s] == kEmptyKey) continue;
    const long long slot = global_slot(state, capacity, local_keys[s]);
    if (slot < 0) continue;
    atomicAdd(state + 2 + slots + slot, local_counts[s]);
    for (int c = 0; c < p.call_count; c++) {
      const int kind = p.calls[2 * c];
      const unsigned long long* mine = local_acc + 3 * c * kLocalSlots + s;
      unsigned long long* acc = state + 2 + (2 + 3 * c) * slots + slot;
      if (kind == AGG_SUM || kind == AGG_SUM0) atomic_add128(acc, acc + slots, mine[0], static_cast<long long>(mine[kLocalSlots]));
      else if (kind == AGG_MIN) atomicMin(reinterpret_cast<long long*>(acc), static_cast<long long>(mine[0]));
      else if (kind == AGG_MAX) atomicMax(reinterpret_cast<long long*>(acc), static_cast<long long>(mine[0]));
      if (mine[2 * kLocalSlots]) atomicAdd(acc + 2 * slots, mine[2 * kLocalSlots]);
    }
  }
}

// Builds one probe's join table (JoinArg) from a build side's key column in GPU memory: each non-NULL key
// claims a slot with atomicCAS and writes its row there; a key found already counts one duplicate in
// flags[0] (an INNER or LEFT probe then runs on the CPU, which pairs every duplicate) and keeps the first
// row, unless `keep_duplicates` (JOIN_MARK): then every row claims a slot of its own and flags[0] counts
// only the rows beyond the first of the empty marker's key. That key has no slot: its row goes to flags[1]
// (set to -1 by the host). `keys` holds every slot's empty marker beforehand; the table has room for twice the
// rows.
extern "C" __global__ void columnar_pipeline_join_build(const long long* __restrict__ build_keys,
                                                        const unsigned char* __restrict__ validity,
                                                        unsigned long long rows, unsigned long long* keys,
                                                        int* table_rows, unsigned long long mask,
                                                        unsigned long long* flags, int keep_duplicates) {
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long r = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; r < rows;
       r += stride) {
    if (!is_valid(validity, r)) continue;
    const unsigned long long key = static_cast<unsigned long long>(build_keys[r]);
    if (key == kJoinEmptyKey) {
      if (atomicCAS(flags + 1, ~0ull, r) != ~0ull) atomicAdd(flags, 1ull);
      continue;
    }
    for (unsigned long long slot = join_hash(key) & mask;; slot = (slot + 1) & mask) {
      const unsigned long long old = atomicCAS(keys + slot, kJoinEmptyKey, key);
      if (old == kJoinEmptyKey) { table_rows[slot] = static_cast<int>(r); break; }
      if (old == key && !keep_duplicates) { atomicAdd(flags, 1ull); break; }
    }
  }
}

// Widens `rows` 32-bit values to 64 bits, sign-extended (as the host's build columns are written): a build column that
// the GPU column cache holds becomes the 64-bit array a join table is built from without crossing the link again, and
// one in a table's pinned batches (read through their mapping) crosses it once, at 4 bytes a value.
extern "C" __global__ void columnar_pipeline_widen(const int* __restrict__ in, long long* __restrict__ out,
                                                   unsigned long long rows) {
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long r = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; r < rows;
       r += stride) {
    out[r] = in[r];
  }
}

// Packs two 32-bit key columns into the 64-bit keys a two-column join probes with (PACK): the high column's bits above
// the low column's, the low one's not sign-extended into them, as the host packs a build side's keys. Reads the
// columns where they lie: a table's pinned batches through their mapping, so they cross the link once, 4 bytes a value.
extern "C" __global__ void columnar_pipeline_pack_keys(const int* __restrict__ high, const int* __restrict__ low,
                                                       long long* __restrict__ out, unsigned long long rows) {
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long r = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; r < rows;
       r += stride) {
    out[r] = static_cast<long long>(static_cast<unsigned long long>(static_cast<unsigned>(high[r])) << 32
                                    | static_cast<unsigned>(low[r]));
  }
}

// Gathers the groups of a grouped aggregate state (`slots` = capacity + 1 slots) into a state of `out_slots`
// slots laid out alike, so that the host reads back the groups, not the table: the table is sized from the
// planner's estimate, which may be far above the groups that came. out[1] counts the groups copied (zero
// beforehand); the slot of the key equal to the empty marker keeps that key. Slots at and above the count
// keep a zero row count, which the host skips. A HAVING filter (having.call >= 0) copies only the groups whose
// call value compares TRUE with the constant, and those whose 64-bit sum overflowed (the host reports the overflow,
// as the CPU backend computes every group's aggregate before its HAVING). A wide sum compares all its 128 bits.
struct HavingArg {
  long long call;         // the aggregate call compared, or -1: no filter
  long long tracked;      // 1: the call counted its non-NULL arguments (else the row count is its count)
  long long kind;         // 0: COUNT (the count), 1: SUM, MIN or MAX (NULL without a value), 2: SUM0
  long long sum;          // 1: a sum, whose high word must be the sign of its low word unless it is wide
  long long op;           // CompareOp: EQ, NE, LT, LE, GT, GE
  long long constant;     // the constant, or the low word of a wide sum's
  long long wide;         // 1: a 128-bit sum, compared with (constant_high, constant)
  long long constant_high;
};

__device__ __forceinline__ bool having_keeps(const unsigned long long* state, unsigned long long slots,
                                             unsigned long long s, const HavingArg& h) {
  if (h.call < 0) return true;
  const unsigned long long rows = state[2 + slots + s];
  const long long lo = static_cast<long long>(state[2 + (2 + 3 * h.call) * slots + s]);
  const long long hi = static_cast<long long>(state[2 + (3 + 3 * h.call) * slots + s]);
  const long long count = static_cast<long long>(h.tracked ? state[2 + (4 + 3 * h.call) * slots + s] : rows);
  if (h.kind == 1 && count == 0) return false;  // NULL compares UNKNOWN
  int order;  // the sign of (value - constant)
  if (h.wide) {
    const unsigned long long ulo = static_cast<unsigned long long>(lo);
    const unsigned long long uc = static_cast<unsigned long long>(h.constant);
    order = hi != h.constant_high ? (hi < h.constant_high ? -1 : 1) : ulo != uc ? (ulo < uc ? -1 : 1) : 0;
  } else {
    if (h.sum && hi != (lo >> 63)) return true;
    const long long v = h.kind == 0 ? count : lo;
    order = v != h.constant ? (v < h.constant ? -1 : 1) : 0;
  }
  switch (h.op) {
    case 0: return order == 0;
    case 1: return order != 0;
    case 2: return order < 0;
    case 3: return order <= 0;
    case 4: return order > 0;
    default: return order >= 0;
  }
}

extern "C" __global__ void columnar_pipeline_compact(const unsigned long long* __restrict__ state,
                                                     unsigned long long slots, int call_count,
                                                     unsigned long long* out, unsigned long long out_slots,
                                                     HavingArg having) {
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long s = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; s < slots;
       s += stride) {
    const unsigned long long count = state[2 + slots + s];
    if (count == 0 || !having_keeps(state, slots, s, having)) continue;
    const unsigned long long i = atomicAdd(out + 1, 1ull);
    if (i >= out_slots) continue;  // cannot happen: the host sizes out from the group count
    out[2 + i] = s == slots - 1 ? kEmptyKey : state[2 + s];
    out[2 + out_slots + i] = count;
    for (int w = 0; w < 3 * call_count; w++) {
      out[2 + (2 + w) * out_slots + i] = state[2 + (2 + w) * slots + s];
    }
  }
}

// Regroups the groups of a compacted grouped state (`in`, `in_slots` slots, a group in each slot whose row count is
// not 0) by some of their keys: each group's packed key masked to those keys' bits and NULL flags (`mask`) is found
// or inserted in `out`, a grouped state of `out_capacity` slots whose keys are empty and words zero, and counts one
// row there. Call c of `out` is a COUNT: byte c of `call_null_bits` is the NULL flag bit of the key it counts (its
// non-NULL count word then counts the groups whose flag is clear) or 0xff (a COUNT(*), or of a key that is never
// NULL: the row count serves). COUNT(DISTINCT x) GROUP BY k, which Calcite plans as GROUP BY k, x and then COUNT(x)
// GROUP BY k, thus returns k's groups instead of every (k, x) pair.
extern "C" __global__ void columnar_pipeline_regroup(const unsigned long long* __restrict__ in,
                                                     unsigned long long in_slots, unsigned long long mask,
                                                     unsigned long long call_null_bits, int call_count,
                                                     unsigned long long* out, unsigned long long out_capacity) {
  const unsigned long long out_slots = out_capacity + 1;
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long s = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; s < in_slots;
       s += stride) {
    if (in[2 + in_slots + s] == 0) continue;
    const unsigned long long key = in[2 + s];
    const long long slot = global_slot(out, out_capacity, key & mask);
    if (slot < 0) continue;
    atomicAdd(out + 2 + out_slots + slot, 1ull);
    for (int c = 0; c < call_count; c++) {
      const unsigned bit = static_cast<unsigned>(call_null_bits >> (8 * c)) & 0xffu;
      if (bit != 0xffu && ((key >> bit) & 1ull) == 0) atomicAdd(out + 2 + (4 + 3 * c) * out_slots + slot, 1ull);
    }
  }
}
