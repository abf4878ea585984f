// Kernels of GpuColumnarPipeline (org.spillway.gpu.exec): a fused filter -> project -> aggregate pipeline,
// one launch per streamed chunk or per table of GPU-resident chunks. Each thread interprets the pipeline's
// register program (GpuProgram) for its rows with SQL's three-valued logic: every register has a NULL flag
// (one bit of a 64-bit mask), NULL rows hold 0, filters keep only TRUE rows and aggregates skip NULLs.
// The filter variant (Pump Up the Volume, Sec. 7.2.4) decides how rows are rejected: BRANCHING loads each
// column at its first use and leaves the row at the first failing filter; PREDICATION loads every column,
// runs the whole program and masks the row's contribution (errors count only for rows still selected).
// Errors (overflow, division by zero) set one device error word that the host turns into the CPU
// backend's exception. Only aggregate state lives in device memory.
#include "pipeline_chunks.cuh"

using namespace spillway;

namespace {

constexpr int kMaxRegisters = 64;
constexpr int kMaxCalls = 16;
constexpr int kBlock = 256;
constexpr int kLocalSlots = 64;       // per-block pre-aggregation table of the grouped kernel
constexpr int kLocalProbes = 4;
constexpr unsigned long long kEmptyKey = ~0ull;

// Instruction opcodes; GpuProgram.java holds the same numbers. Fields: x op, y destination, z operand
// register, w second operand register, constant index or jump target.
enum Op : int {
  LOAD = 0, CONST = 1, CONST_NULL = 2, MOV = 3, CMP_EQ = 4, CMP_NE = 5, CMP_LT = 6, CMP_LE = 7, CMP_GT = 8,
  CMP_GE = 9, IN_RANGES = 10, NOT = 11, IS_NULL = 12, JUMP_IF_FALSE = 13, JUMP_IF_TRUE = 14,
  JUMP_IF_NOT_TRUE = 15, JUMP = 16, MERGE_NULL = 17, ADD = 18, SUB = 19, MUL = 20, DIV = 21, CHECK_INT32 = 22,
  SCALE = 23, YEAR = 24, FILTER = 25
};

// Aggregate kinds; AggCall.Kind order.
enum Agg : int { AGG_SUM = 0, AGG_SUM0 = 1, AGG_COUNT = 2, AGG_MIN = 3, AGG_MAX = 4 };

// The program and aggregation of a launch, passed by value; every field is one 64-bit word
// (GpuColumnarPipeline.programArgument writes them in this order).
struct ProgramArg {
  const int4* code;
  long long length;
  const long long* constants;
  long long column_count;
  long long wide_mask;
  long long branching;      // 1: BRANCHING, 0: PREDICATION
  const int* calls;         // (kind, argument register) pairs
  long long call_count;
  long long tracked_calls;  // bit c: call c's argument may be NULL, so count its non-NULL values
  const int* keys;          // (register, bits 32 or 64, null flag bit or -1) triples
  long long key_count;
  long long capacity;       // hash table slots (a power of two); 0 for a global aggregate
};

__device__ __forceinline__ long long year_of_epoch_day(long long day) {
  long long z = day + 719468;
  long long era = (z >= 0 ? z : z - 146096) / 146097;
  long long doe = z - era * 146097;
  long long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  long long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  long long mp = (5 * doy + 2) / 153;
  return yoe + era * 400 + (mp >= 10 ? 1 : 0);
}

// One row's registers: values (0 when NULL), the NULL flags and the input columns loaded so far.
struct Row {
  long long r[kMaxRegisters];
  unsigned long long nulls;
  unsigned loaded;

  __device__ __forceinline__ bool is_null(int reg) const { return (nulls >> reg) & 1; }

  __device__ __forceinline__ void set(int reg, long long value, bool null) {
    r[reg] = null ? 0 : value;
    nulls = null ? nulls | (1ull << reg) : nulls & ~(1ull << reg);
  }

  // Input column c into register c, NULL where its validity bit is clear.
  __device__ __forceinline__ void load(const ChunkArg& chunk, const ProgramArg& p, int c, unsigned long long row) {
    const unsigned char* validity = chunk.validity[c];
    const bool null = validity != nullptr && !((validity[row >> 3] >> (row & 7)) & 1);
    long long v = 0;
    if (!null) {
      v = (p.wide_mask >> c) & 1 ? static_cast<const long long*>(chunk.column[c])[row]
                                 : static_cast<long long>(static_cast<const int*>(chunk.column[c])[row]);
    }
    set(c, v, null);
    loaded |= 1u << c;
  }
};

// Runs the program over one row; returns whether the row is selected (every filter TRUE, no error).
// Under BRANCHING it returns at the first failing filter; under PREDICATION it runs on, and errors of rows
// no longer selected are ignored (the CPU backend never computes them).
__device__ bool run_program(const ChunkArg& chunk, const ProgramArg& p, unsigned long long row, Row& w,
                            unsigned long long* error) {
  const int4* __restrict__ program = p.code;
  const long long* __restrict__ constants = p.constants;
  const bool branching = p.branching != 0;
  w.nulls = 0;
  w.loaded = 0;
  if (!branching) {
    for (int c = 0; c < p.column_count; c++) w.load(chunk, p, c, row);
  }
  bool keep = true;
  for (int pc = 0; pc < p.length;) {
    const int4 in = program[pc];
    const long long a = w.r[in.z];
    const bool an = w.is_null(in.z);
    switch (in.x) {
      case LOAD: if (!((w.loaded >> in.z) & 1)) w.load(chunk, p, in.z, row); break;
      case CONST: w.set(in.y, constants[in.w], false); break;
      case CONST_NULL: w.set(in.y, 0, true); break;
      case MOV: w.set(in.y, a, an); break;
      case CMP_EQ: case CMP_NE: case CMP_LT: case CMP_LE: case CMP_GT: case CMP_GE: {
        const long long b = w.r[in.w];
        const bool t = in.x == CMP_EQ ? a == b : in.x == CMP_NE ? a != b : in.x == CMP_LT ? a < b
            : in.x == CMP_LE ? a <= b : in.x == CMP_GT ? a > b : a >= b;
        w.set(in.y, t, an || w.is_null(in.w));
        break;
      }
      case IN_RANGES: {  // constants: range count, NULL result (-1 NULL, 0 FALSE, 1 TRUE), then low/high pairs
        const long long n = constants[in.w];
        if (an) {
          const long long as = constants[in.w + 1];
          w.set(in.y, as, as < 0);
          break;
        }
        long long hit = 0;
        for (long long k = 0; k < n; k++) {
          hit |= (a >= constants[in.w + 2 + 2 * k]) & (a <= constants[in.w + 3 + 2 * k]);
        }
        w.set(in.y, hit, false);
        break;
      }
      case NOT: w.set(in.y, 1 - a, an); break;
      case IS_NULL: w.set(in.y, an != (in.w != 0), false); break;
      case JUMP_IF_FALSE: if (!an && a == 0) { pc = in.w; continue; } break;
      case JUMP_IF_TRUE: if (!an && a == 1) { pc = in.w; continue; } break;
      case JUMP_IF_NOT_TRUE: if (an || a != 1) { pc = in.w; continue; } break;
      case JUMP: pc = in.w; continue;
      case MERGE_NULL: if (an) w.set(in.y, 0, true); break;
      case ADD: case SUB: case MUL: case DIV: {
        const long long b = w.r[in.w];
        if (an || w.is_null(in.w)) { w.set(in.y, 0, true); break; }  // NULL rows never fail, as on the CPU
        const unsigned long long ua = static_cast<unsigned long long>(a), ub = static_cast<unsigned long long>(b);
        long long s = 0;
        unsigned bad = 0;
        if (in.x == ADD) {
          s = static_cast<long long>(ua + ub);
          bad = ((a ^ s) & (b ^ s)) < 0 ? ERR_ARITH : 0;
        } else if (in.x == SUB) {
          s = static_cast<long long>(ua - ub);
          bad = ((a ^ b) & (a ^ s)) < 0 ? ERR_ARITH : 0;
        } else if (in.x == MUL) {
          s = static_cast<long long>(ua * ub);
          bad = __mul64hi(a, b) != (s >> 63) ? ERR_ARITH : 0;
        } else if (b == 0) {
          bad = ERR_DIVIDE_BY_ZERO;
        } else {  // Java's Long.MIN_VALUE / -1 wraps; in C++ it is undefined, so negate explicitly
          s = b == -1 ? static_cast<long long>(0ull - ua) : a / b;
        }
        if (bad) {
          if (keep) { fail(error, bad, pc); return false; }
          s = 0;
        }
        w.set(in.y, s, false);
        break;
      }
      case CHECK_INT32:
        if (a != static_cast<int>(a) && keep) { fail(error, ERR_INT32, pc); return false; }
        break;
      case SCALE: {
        const long long b = constants[in.w];
        const long long lo = static_cast<long long>(static_cast<unsigned long long>(a) * static_cast<unsigned long long>(b));
        if (__mul64hi(a, b) != (lo >> 63) && keep) { fail(error, ERR_CAST, pc); return false; }
        w.set(in.y, lo, an);
        break;
      }
      case YEAR: w.set(in.y, year_of_epoch_day(a), an); break;
      case FILTER:
        if (an || a != 1) {
          if (branching) return false;
          keep = false;
        }
        break;
      default: return false;
    }
    pc++;
  }
  return keep;
}

__device__ __forceinline__ unsigned long long hash64(unsigned long long k) {
  k ^= k >> 33; k *= 0xff51afd7ed558ccdull; k ^= k >> 33; k *= 0xc4ceb9fe1a85ec53ull; k ^= k >> 33;
  return k;
}

__device__ __forceinline__ unsigned long long identity_of(int kind) {
  return kind == AGG_MIN ? 0x7fffffffffffffffull : kind == AGG_MAX ? 0x8000000000000000ull : 0ull;
}

// Block-wide MIN or MAX of a signed value (thread 0 holds it); every thread must call it.
__device__ __forceinline__ long long block_extreme(long long v, bool min_of) {
  __shared__ long long shared[kBlock / 32];
  for (int offset = 16; offset > 0; offset /= 2) {
    const long long o = __shfl_down_sync(0xffffffffu, v, offset);
    v = min_of ? min(v, o) : max(v, o);
  }
  if (threadIdx.x % 32 == 0) shared[threadIdx.x / 32] = v;
  __syncthreads();
  if (threadIdx.x < 32) {
    v = threadIdx.x < kBlock / 32 ? shared[threadIdx.x] : static_cast<long long>(identity_of(min_of ? AGG_MIN : AGG_MAX));
    for (int offset = 16; offset > 0; offset /= 2) {
      const long long o = __shfl_down_sync(0xffffffffu, v, offset);
      v = min_of ? min(v, o) : max(v, o);
    }
  }
  __syncthreads();
  return v;
}

// Adds one selected row's arguments into accumulators laid out like the state: lo, hi and non-NULL count per
// call at stride `stride` words (1 for a slot of a table).
__device__ __forceinline__ void accumulate_atomic(const ProgramArg& p, const Row& w, unsigned long long* acc,
                                                  unsigned long long stride) {
  for (int c = 0; c < p.call_count; c++) {
    const int kind = p.calls[2 * c];
    const int reg = p.calls[2 * c + 1];
    if (kind == AGG_COUNT && reg < 0) continue;
    if (w.is_null(reg)) continue;
    const long long v = w.r[reg];
    unsigned long long* lo = acc + 3 * c * stride;
    if (kind == AGG_SUM || kind == AGG_SUM0) atomic_add128(lo, lo + stride, static_cast<unsigned long long>(v), v < 0 ? -1 : 0);
    else if (kind == AGG_MIN) atomicMin(reinterpret_cast<long long*>(lo), v);
    else if (kind == AGG_MAX) atomicMax(reinterpret_cast<long long*>(lo), v);
    if ((p.tracked_calls >> c) & 1) atomicAdd(lo + 2 * stride, 1ull);
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

// The global table's slot of a key (the key equal to the empty marker has the slot at index capacity); -1
// and the error word set when the table is full.
__device__ __forceinline__ long long global_slot(unsigned long long* state, unsigned long long capacity,
                                                 unsigned long long key) {
  unsigned long long* table = state + 2;
  if (key == kEmptyKey) {
    if (atomicCAS(table + capacity, kEmptyKey, 0ull) == kEmptyKey) atomicAdd(state + 1, 1ull);
    return static_cast<long long>(capacity);
  }
  const long long slot = find_or_insert(table, capacity, key, capacity, state + 1);
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
    const unsigned long long row = first + threadIdx.x;
    if (row >= ch.rows) return;
    const bool keep = run_program(ch, p, row, w, state);
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
  for_each_tile<kBlock>(chunk, table, table_count, table_tiles, [&](const ChunkArg& ch, unsigned long long first) {
    const unsigned long long row = first + threadIdx.x;
    if (row >= ch.rows) return;
    if (!run_program(ch, p, row, w, state)) return;
    unsigned long long key = 0;
    bool in_range = true;
    for (int k = 0, shift = 0; k < p.key_count; k++) {
      const int reg = p.keys[3 * k];
      const long long v = w.r[reg];
      if (p.keys[3 * k + 1] == 64) {
        key |= static_cast<unsigned long long>(v);
      } else {
        in_range &= v == static_cast<int>(v);
        key |= static_cast<unsigned long long>(static_cast<unsigned>(static_cast<int>(v))) << shift;
        shift += 32;
      }
      if (w.is_null(reg) && p.keys[3 * k + 2] >= 0) key |= 1ull << p.keys[3 * k + 2];
    }
    if (!in_range) { fail(state, ERR_KEY_RANGE, 0); return; }
    const long long mine = key == kEmptyKey ? -1 : find_or_insert(local_keys, kLocalSlots, key, kLocalProbes, nullptr);
    if (mine >= 0) {
      atomicAdd(local_counts + mine, 1ull);
      accumulate_atomic(p, w, local_acc + mine, kLocalSlots);
      return;
    }
    const long long slot = global_slot(state, capacity, key);
    if (slot < 0) return;
    atomicAdd(state + 2 + slots + slot, 1ull);
    accumulate_atomic(p, w, state + 2 + 2 * slots + slot, slots);
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
