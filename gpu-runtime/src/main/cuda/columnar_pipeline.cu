// Kernels of GpuColumnarPipeline (org.spillway.gpu.exec): a fused filter -> project -> aggregate pipeline,
// one launch per column chunk. Each thread interprets the pipeline's register program (GpuProgram) for its
// rows; only aggregate state lives in device memory. Inputs never hold NULLs (the host checks), so the
// program computes plain int64 values; errors (overflow, division by zero) set one device error word
// that the host turns into the CPU backend's exception.
#include <cstdint>

namespace {

constexpr int kMaxRegisters = 64;
constexpr int kMaxColumns = 12;
constexpr int kMaxCalls = 16;
constexpr int kBlock = 256;
constexpr unsigned long long kEmptyKey = ~0ull;

// Instruction opcodes; GpuProgram.java holds the same numbers.
enum Op : int {
  CONST = 0, MOV = 1, CMP_EQ = 2, CMP_NE = 3, CMP_LT = 4, CMP_LE = 5, CMP_GT = 6, CMP_GE = 7,
  IN_RANGES = 8, NOT = 9, JUMP_IF_ZERO = 10, JUMP = 11, ADD = 12, SUB = 13, MUL = 14, DIV = 15,
  CHECK_INT32 = 16, SCALE = 17, YEAR = 18, FILTER = 19
};

// Error codes (high word of the error word; the low word is the failing instruction).
enum Error : unsigned {
  ERR_ARITH = 1, ERR_DIVIDE_BY_ZERO = 2, ERR_INT32 = 3, ERR_CAST = 4, ERR_KEY_RANGE = 5, ERR_TABLE_FULL = 6
};

// Aggregate kinds; AggCall.Kind order (COUNT is served by the per-group row count).
enum Agg : int { AGG_SUM = 0, AGG_SUM0 = 1, AGG_COUNT = 2, AGG_MIN = 3, AGG_MAX = 4 };

struct Columns {
  long long address[kMaxColumns];
};

// Column addresses travel as twelve scalar kernel parameters (the launcher passes scalars, not structs).
#define COLUMN_PARAMS long long c0, long long c1, long long c2, long long c3, long long c4, long long c5, \
    long long c6, long long c7, long long c8, long long c9, long long c10, long long c11
#define COLUMN_ARRAY {{c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11}}

__device__ __forceinline__ void fail(unsigned long long* error, unsigned code, int pc) {
  atomicCAS(error, 0ull, (static_cast<unsigned long long>(code) << 32) | static_cast<unsigned>(pc));
}

__device__ __forceinline__ long long year_of_epoch_day(long long day) {
  long long z = day + 719468;
  long long era = (z >= 0 ? z : z - 146096) / 146097;
  long long doe = z - era * 146097;
  long long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  long long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  long long mp = (5 * doy + 2) / 153;
  return yoe + era * 400 + (mp >= 10 ? 1 : 0);
}

// Runs the program over one row's registers; false when a FILTER rejects the row or an error occurs.
__device__ bool run_program(const int4* __restrict__ program, int length, const long long* __restrict__ constants,
                            long long* r, unsigned long long* error) {
  for (int pc = 0; pc < length;) {
    const int4 in = program[pc];
    const long long a = r[in.z];
    switch (in.x) {
      case CONST: r[in.y] = constants[in.w]; break;
      case MOV: r[in.y] = a; break;
      case CMP_EQ: r[in.y] = a == r[in.w]; break;
      case CMP_NE: r[in.y] = a != r[in.w]; break;
      case CMP_LT: r[in.y] = a < r[in.w]; break;
      case CMP_LE: r[in.y] = a <= r[in.w]; break;
      case CMP_GT: r[in.y] = a > r[in.w]; break;
      case CMP_GE: r[in.y] = a >= r[in.w]; break;
      case IN_RANGES: {
        const long long n = constants[in.w];
        long long hit = 0;
        for (long long k = 0; k < n; k++) {
          hit |= (a >= constants[in.w + 1 + 2 * k]) & (a <= constants[in.w + 2 + 2 * k]);
        }
        r[in.y] = hit;
        break;
      }
      case NOT: r[in.y] = 1 - a; break;
      case JUMP_IF_ZERO: if (r[in.y] == 0) { pc = in.w; continue; } break;
      case JUMP: pc = in.w; continue;
      case ADD: {
        const long long b = r[in.w];
        const long long s = static_cast<long long>(static_cast<unsigned long long>(a) + static_cast<unsigned long long>(b));
        if (((a ^ s) & (b ^ s)) < 0) { fail(error, ERR_ARITH, pc); return false; }
        r[in.y] = s;
        break;
      }
      case SUB: {
        const long long b = r[in.w];
        const long long s = static_cast<long long>(static_cast<unsigned long long>(a) - static_cast<unsigned long long>(b));
        if (((a ^ b) & (a ^ s)) < 0) { fail(error, ERR_ARITH, pc); return false; }
        r[in.y] = s;
        break;
      }
      case MUL:
      case SCALE: {
        const long long b = in.x == MUL ? r[in.w] : constants[in.w];
        const long long lo = static_cast<long long>(static_cast<unsigned long long>(a) * static_cast<unsigned long long>(b));
        if (__mul64hi(a, b) != (lo >> 63)) { fail(error, in.x == MUL ? ERR_ARITH : ERR_CAST, pc); return false; }
        r[in.y] = lo;
        break;
      }
      case DIV: {
        const long long b = r[in.w];
        if (b == 0) { fail(error, ERR_DIVIDE_BY_ZERO, pc); return false; }
        // Java's Long.MIN_VALUE / -1 wraps to Long.MIN_VALUE; in C++ it is undefined, so negate explicitly.
        r[in.y] = b == -1 ? static_cast<long long>(0ull - static_cast<unsigned long long>(a)) : a / b;
        break;
      }
      case CHECK_INT32:
        if (a != static_cast<int>(a)) { fail(error, ERR_INT32, pc); return false; }
        break;
      case YEAR: r[in.y] = year_of_epoch_day(a); break;
      case FILTER: if (a == 0) return false; break;
      default: return false;
    }
    pc++;
  }
  return true;
}

__device__ __forceinline__ unsigned long long hash64(unsigned long long k) {
  k ^= k >> 33; k *= 0xff51afd7ed558ccdull; k ^= k >> 33; k *= 0xc4ceb9fe1a85ec53ull; k ^= k >> 33;
  return k;
}

// Adds v into the 128-bit (lo, hi) accumulator at the given addresses, so that no order of additions can
// overflow; the host checks that the final value fits in 64 bits.
__device__ __forceinline__ void atomic_add128(unsigned long long* lo, unsigned long long* hi, unsigned long long vlo,
                                              long long vhi) {
  const unsigned long long old = atomicAdd(lo, vlo);
  const long long carry = old + vlo < old ? 1 : 0;
  if (vhi + carry != 0) atomicAdd(hi, static_cast<unsigned long long>(vhi + carry));
}

// The per-row part shared by both sinks: loads the used columns into registers, runs the program.
__device__ __forceinline__ bool load_and_run(const Columns& columns, int column_count, int wide_mask,
                                             unsigned long long row, const int4* program, int length,
                                             const long long* constants, long long* r, unsigned long long* error) {
  for (int c = 0; c < column_count; c++) {
    r[c] = (wide_mask >> c) & 1 ? reinterpret_cast<const long long*>(columns.address[c])[row]
                                : static_cast<long long>(reinterpret_cast<const int*>(columns.address[c])[row]);
  }
  return run_program(program, length, constants, r, error);
}

}  // namespace

// Sets every slot of the aggregate state to its identity: keys empty, counts and sums zero, MIN/MAX at the
// extreme values. Layout (words): error, groups, keys[slots], counts[slots], then per call lo[slots], hi[slots].
extern "C" __global__ void columnar_pipeline_init(unsigned long long* state, unsigned long long slots,
                                                  const int* __restrict__ calls, int call_count) {
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long s = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; s < slots;
       s += stride) {
    if (s == 0) { state[0] = 0; state[1] = 0; }
    state[2 + s] = kEmptyKey;
    state[2 + slots + s] = 0;
    for (int c = 0; c < call_count; c++) {
      const int kind = calls[2 * c];
      unsigned long long* lo = state + 2 + (2 + 2 * c) * slots;
      lo[s] = kind == AGG_MIN ? 0x7fffffffffffffffull : kind == AGG_MAX ? 0x8000000000000000ull : 0ull;
      lo[slots + s] = 0;
    }
  }
}

// Global aggregate (no GROUP BY): per-thread accumulators in registers, one block reduction per call and
// one atomic per block and call. calls holds (kind, register) pairs.
extern "C" __global__ void __launch_bounds__(kBlock) columnar_pipeline_global(
    COLUMN_PARAMS, int column_count, int wide_mask, unsigned long long rows, const int4* __restrict__ program,
    int length, const long long* __restrict__ constants, const int* __restrict__ calls, int call_count,
    unsigned long long* state) {
  __shared__ unsigned long long shared_lo[kBlock];
  __shared__ long long shared_hi[kBlock];
  const Columns columns = COLUMN_ARRAY;
  long long r[kMaxRegisters];
  unsigned long long count = 0;
  unsigned long long lo[kMaxCalls];
  long long hi[kMaxCalls];
  for (int c = 0; c < call_count; c++) {
    const int kind = calls[2 * c];
    lo[c] = kind == AGG_MIN ? 0x7fffffffffffffffull : kind == AGG_MAX ? 0x8000000000000000ull : 0ull;
    hi[c] = 0;
  }
  unsigned long long* error = state;
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long row = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; row < rows;
       row += stride) {
    if (!load_and_run(columns, column_count, wide_mask, row, program, length, constants, r, error)) continue;
    count++;
    for (int c = 0; c < call_count; c++) {
      const int kind = calls[2 * c];
      const long long v = r[calls[2 * c + 1]];
      if (kind == AGG_SUM || kind == AGG_SUM0) {
        const unsigned long long old = lo[c];
        lo[c] += static_cast<unsigned long long>(v);
        hi[c] += (v < 0 ? -1 : 0) + (lo[c] < old ? 1 : 0);
      } else if (kind == AGG_MIN) {
        lo[c] = static_cast<unsigned long long>(min(static_cast<long long>(lo[c]), v));
      } else if (kind == AGG_MAX) {
        lo[c] = static_cast<unsigned long long>(max(static_cast<long long>(lo[c]), v));
      }
    }
  }
  // Block reduction, one value (or 128-bit pair) per call; the row count goes first as call -1.
  for (int c = -1; c < call_count; c++) {
    const int kind = c < 0 ? AGG_COUNT : calls[2 * c];
    if (kind == AGG_COUNT && c >= 0) continue;
    shared_lo[threadIdx.x] = c < 0 ? count : lo[c];
    shared_hi[threadIdx.x] = c < 0 ? 0 : hi[c];
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
      if (threadIdx.x < half) {
        const unsigned long long x = shared_lo[threadIdx.x], y = shared_lo[threadIdx.x + half];
        if (kind == AGG_MIN) {
          shared_lo[threadIdx.x] = static_cast<unsigned long long>(min(static_cast<long long>(x), static_cast<long long>(y)));
        } else if (kind == AGG_MAX) {
          shared_lo[threadIdx.x] = static_cast<unsigned long long>(max(static_cast<long long>(x), static_cast<long long>(y)));
        } else {
          shared_lo[threadIdx.x] = x + y;
          shared_hi[threadIdx.x] += shared_hi[threadIdx.x + half] + (x + y < x ? 1 : 0);
        }
      }
      __syncthreads();
    }
    if (threadIdx.x == 0) {
      const unsigned long long slots = 1;
      if (c < 0) {
        atomicAdd(state + 2 + slots, shared_lo[0]);
      } else {
        unsigned long long* acc = state + 2 + (2 + 2 * c) * slots;
        if (kind == AGG_MIN) atomicMin(reinterpret_cast<long long*>(acc), static_cast<long long>(shared_lo[0]));
        else if (kind == AGG_MAX) atomicMax(reinterpret_cast<long long*>(acc), static_cast<long long>(shared_lo[0]));
        else atomic_add128(acc, acc + slots, shared_lo[0], shared_hi[0]);
      }
    }
    __syncthreads();
  }
}

// GROUP BY: the key registers are packed into one 64-bit key (key_bits[k] is 32 or 64), looked up in an
// open-addressing table of 2^k slots with linear probing (atomicCAS claims an empty slot); the key that
// equals the empty marker has its own slot at index capacity. Accumulators are updated with atomics.
extern "C" __global__ void __launch_bounds__(kBlock) columnar_pipeline_grouped(
    COLUMN_PARAMS, int column_count, int wide_mask, unsigned long long rows, const int4* __restrict__ program,
    int length, const long long* __restrict__ constants, const int* __restrict__ calls, int call_count,
    const int* __restrict__ keys, int key_count, unsigned long long capacity, unsigned long long* state) {
  const Columns columns = COLUMN_ARRAY;
  long long r[kMaxRegisters];
  unsigned long long* error = state;
  const unsigned long long slots = capacity + 1;
  unsigned long long* table = state + 2;
  unsigned long long* counts = state + 2 + slots;
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long row = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; row < rows;
       row += stride) {
    if (!load_and_run(columns, column_count, wide_mask, row, program, length, constants, r, error)) continue;
    unsigned long long key = 0;
    bool in_range = true;
    for (int k = 0, shift = 0; k < key_count; k++) {
      const long long v = r[keys[2 * k]];
      if (keys[2 * k + 1] == 64) {
        key = static_cast<unsigned long long>(v);
      } else {
        in_range &= v == static_cast<int>(v);
        key |= static_cast<unsigned long long>(static_cast<unsigned>(static_cast<int>(v))) << shift;
        shift += 32;
      }
    }
    if (!in_range) { fail(error, ERR_KEY_RANGE, 0); continue; }
    unsigned long long slot = capacity;
    if (key != kEmptyKey) {
      slot = hash64(key) & (capacity - 1);
      unsigned long long probes = 0;
      for (;;) {
        const unsigned long long seen = table[slot];
        if (seen == key) break;
        if (seen == kEmptyKey) {
          const unsigned long long old = atomicCAS(table + slot, kEmptyKey, key);
          if (old == kEmptyKey) { atomicAdd(state + 1, 1ull); break; }
          if (old == key) break;
        }
        if (++probes >= capacity) break;
        slot = (slot + 1) & (capacity - 1);
      }
      if (probes >= capacity) { fail(error, ERR_TABLE_FULL, 0); continue; }
    } else if (atomicCAS(table + slot, kEmptyKey, 0ull) == kEmptyKey) {
      atomicAdd(state + 1, 1ull);  // the reserved slot's key word only marks it used
    }
    atomicAdd(counts + slot, 1ull);
    for (int c = 0; c < call_count; c++) {
      const int kind = calls[2 * c];
      const long long v = r[calls[2 * c + 1]];
      unsigned long long* lo = state + 2 + (2 + 2 * c) * slots + slot;
      if (kind == AGG_SUM || kind == AGG_SUM0) atomic_add128(lo, lo + slots, static_cast<unsigned long long>(v), v < 0 ? -1 : 0);
      else if (kind == AGG_MIN) atomicMin(reinterpret_cast<long long*>(lo), v);
      else if (kind == AGG_MAX) atomicMax(reinterpret_cast<long long*>(lo), v);
    }
  }
}
