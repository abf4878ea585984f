// The register program of GpuColumnarPipeline (GpuProgram.java) and its per-row interpreter, shared by the
// kernels of columnar_pipeline.cu (filter, project, aggregate) and columnar_pipeline_rows.cu (filter,
// project, return the selected rows). Each thread runs the program for its row with SQL's three-valued
// logic: every register has a NULL flag (one bit of a 64-bit mask), NULL rows hold 0 and filters keep only
// TRUE rows. The filter variant (Pump Up the Volume, Sec. 7.2.4) decides how rows are rejected: BRANCHING
// loads each column at its first use and leaves the row at the first failing filter; PREDICATION loads
// every column and runs the whole program (errors count only for rows still selected). A pipeline that
// probes hash joins (GpuJoinTables.java) looks each probe key up in a table resident in GPU memory (PROBE:
// the build row, or the row rejected as the join kind says) and reads the build side's columns at that row
// (LOAD_BUILD), so nothing of the join crosses the link while the probe side streams. FLOAT64 values sit
// in the registers as their bits; their arithmetic uses the _rn intrinsics, which round as Java does and are
// never contracted into a fused multiply-add.
#pragma once
#include "pipeline_chunks.cuh"

namespace spillway {

constexpr int kMaxRegisters = 64;
// Build-side columns a program can read (GpuProgram.MAX_BUILD_COLUMNS); bits kMaxColumns.. of Row::loaded.
constexpr int kMaxBuildColumns = 16;

// Instruction opcodes; GpuProgram.java holds the same numbers. Fields: x op, y destination, z operand
// register, w second operand register, constant index or jump target.
enum Op : int {
  LOAD = 0, CONST = 1, CONST_NULL = 2, MOV = 3, CMP_EQ = 4, CMP_NE = 5, CMP_LT = 6, CMP_LE = 7, CMP_GT = 8,
  CMP_GE = 9, IN_RANGES = 10, NOT = 11, IS_NULL = 12, JUMP_IF_FALSE = 13, JUMP_IF_TRUE = 14,
  JUMP_IF_NOT_TRUE = 15, JUMP = 16, MERGE_NULL = 17, ADD = 18, SUB = 19, MUL = 20, DIV = 21, CHECK_INT32 = 22,
  SCALE = 23, YEAR = 24, FILTER = 25, PROBE = 26, LOAD_BUILD = 27, PACK = 28, FCMP_EQ = 29, FCMP_NE = 30,
  FCMP_LT = 31, FCMP_LE = 32, FCMP_GT = 33, FCMP_GE = 34, FADD = 35, FSUB = 36, FMUL = 37, FDIV = 38, TO_DOUBLE = 39,
  LIKE_TEXT = 40, PROBE_ALL = 41, PROBE_NEXT = 42, MARK = 43
};

// Join kinds of a PROBE (GpuProgram.JOIN_* in Java): what a probe row becomes.
// JOIN_MARK is a mark join's probe side: its table keeps every build row of a key in a slot of its own, and
// PROBE_ALL and PROBE_NEXT visit them in a loop whose MARKs set, per mark, the build rows whose condition holds
// (one byte per mark and build row, which any thread may set; several semi- and anti-joins of one build side,
// such as TPC-H Q21's, keep a mark each). It passes no row on.
enum JoinKind : int { JOIN_INNER = 0, JOIN_LEFT = 1, JOIN_SEMI = 2, JOIN_ANTI = 3, JOIN_MARK = 4 };

// The key marking an empty slot of a join table; the build row holding this key itself is kept aside.
constexpr unsigned long long kJoinEmptyKey = ~0ull;

// One probe's hash table in GPU memory (GpuJoinTables.java writes seven words per join): open addressing
// with linear probing over `mask + 1` slots of keys and build rows; unique keys (INNER and LEFT joins
// check this while building; SEMI and ANTI keep one row per key), but for JOIN_MARK's.
struct JoinArg {
  const unsigned long long* keys;
  const int* rows;
  unsigned long long mask;
  long long empty_key_row;  // the build row whose key equals kJoinEmptyKey, or -1
  long long kind;           // JoinKind
  unsigned char* marks;     // JOIN_MARK: per mark and build row, 1 once a probe row marked it; else null
  long long mark_stride;    // build rows: mark m of row r is marks[m * mark_stride + r]
};

// A build-side column a program reads: 8-byte values per build row and an Arrow validity bitmap (null: none).
struct BuildColumnArg {
  const long long* values;
  const unsigned char* validity;
};

__device__ __forceinline__ unsigned long long join_hash(unsigned long long k) {
  k ^= k >> 33; k *= 0xff51afd7ed558ccdull; k ^= k >> 33; k *= 0xc4ceb9fe1a85ec53ull; k ^= k >> 33;
  return k;
}

// The build row holding `key`, or -1.
__device__ __forceinline__ long long join_find(const JoinArg& j, unsigned long long key) {
  if (key == kJoinEmptyKey) return j.empty_key_row;
  for (unsigned long long slot = join_hash(key) & j.mask;; slot = (slot + 1) & j.mask) {
    const unsigned long long seen = j.keys[slot];
    if (seen == key) return j.rows[slot];
    if (seen == kJoinEmptyKey) return -1;
  }
}

// The next slot at or after `slot` holding `key` (the table's build rows of one key lie on its probe sequence
// before the first empty slot), or -1.
__device__ __forceinline__ long long join_find_from(const JoinArg& j, unsigned long long key, unsigned long long slot) {
  for (;; slot = (slot + 1) & j.mask) {
    const unsigned long long seen = j.keys[slot];
    if (seen == key) return static_cast<long long>(slot);
    if (seen == kJoinEmptyKey) return -1;
  }
}

// The program of a launch (and the aggregation of the aggregating kernels), passed by value; every field is
// one 64-bit word (GpuProgramImage.argument writes them in this order).
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
  const JoinArg* joins;     // per PROBE's join index (null without probes)
  const BuildColumnArg* build_columns;  // per LOAD_BUILD's column slot
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
    const bool null = !is_valid(validity, row);
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
// no longer selected are ignored (the CPU backend never computes them). `staged` holds the tile's text in shared
// memory (stage_text), or is null: LIKE then reads the text in place.
static __device__ bool run_program(const ChunkArg& chunk, const ProgramArg& p, unsigned long long row, Row& w,
                            unsigned long long* error, const TextTile* staged = nullptr) {
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
      case FCMP_EQ: case FCMP_NE: case FCMP_LT: case FCMP_LE: case FCMP_GT: case FCMP_GE: {
        const double x = __longlong_as_double(a), y = __longlong_as_double(w.r[in.w]);
        const bool t = in.x == FCMP_EQ ? x == y : in.x == FCMP_NE ? x != y : in.x == FCMP_LT ? x < y
            : in.x == FCMP_LE ? x <= y : in.x == FCMP_GT ? x > y : x >= y;
        w.set(in.y, t, an || w.is_null(in.w));
        break;
      }
      case FADD: case FSUB: case FMUL: case FDIV: {
        const double x = __longlong_as_double(a), y = __longlong_as_double(w.r[in.w]);
        const double v = in.x == FADD ? __dadd_rn(x, y) : in.x == FSUB ? __dsub_rn(x, y)
            : in.x == FMUL ? __dmul_rn(x, y) : __ddiv_rn(x, y);
        w.set(in.y, __double_as_longlong(v), an || w.is_null(in.w));
        break;
      }
      case TO_DOUBLE: {  // w: constant 10^scale; dividing by it rounds once, as the CPU backend's cast does
        const long long divisor = constants[in.w];
        const double v = divisor == 1 ? static_cast<double>(a) : __ddiv_rn(static_cast<double>(a), static_cast<double>(divisor));
        w.set(in.y, __double_as_longlong(v), an);
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
      case LIKE_TEXT: {  // z: a plain-text column slot (never a value register), w: the pattern's constants
        const int c = in.z;
        const bool null = !is_valid(chunk.validity[c], row);
        bool hit = false;
        if (!null) {
          const int* offsets = static_cast<const int*>(chunk.column[c]);
          const int from = offsets[row];
          const long long length = static_cast<long long>(offsets[row + 1]) - from;
          bool in_shared;
          const unsigned char* s = staged_text(staged, c, chunk.text[c] + from, in_shared);
          hit = in_shared ? like_pieces(s, length, constants + in.w) : like_text(s, length, constants + in.w);
        }
        w.set(in.y, hit, null);
        break;
      }
      case FILTER:
        if (an || a != 1) {
          if (branching) return false;
          keep = false;
        }
        break;
      case PROBE: {  // y: build row register, z: key register, w: join; a NULL key matches nothing
        const JoinArg& j = p.joins[in.w];
        const long long found = an ? -1 : join_find(j, static_cast<unsigned long long>(a));
        const bool pass = j.kind == JOIN_LEFT || (j.kind == JOIN_ANTI ? found < 0 : found >= 0);
        w.set(in.y, found, found < 0);
        if (!pass) {
          if (branching) return false;
          keep = false;
        }
        break;
      }
      case PROBE_ALL: case PROBE_NEXT: {
        // y: build row register (y + 1 holds its slot), z: key register, w: constants (join, target). PROBE_ALL
        // finds the key's first build row, or jumps to the target (past the loop); PROBE_NEXT finds the next one
        // and jumps to the target (the loop's body), or falls through. A NULL key matches nothing; the build row
        // of the empty marker's key has no slot and is visited once.
        const JoinArg& j = p.joins[constants[in.w]];
        const bool first = in.x == PROBE_ALL;
        const unsigned long long key = static_cast<unsigned long long>(a);
        long long slot = -1, found = -1;
        if (!an && key == kJoinEmptyKey) {
          found = first ? j.empty_key_row : -1;
        } else if (!an) {
          slot = join_find_from(j, key, first ? join_hash(key) & j.mask
                                              : (static_cast<unsigned long long>(w.r[in.y + 1]) + 1) & j.mask);
          found = slot < 0 ? -1 : j.rows[slot];
        }
        w.loaded &= (1u << kMaxColumns) - 1;  // the build columns of another build row load afresh
        if (found >= 0) {
          w.set(in.y, found, false);
          w.r[in.y + 1] = slot;
        }
        if ((found >= 0) != first) { pc = static_cast<int>(constants[in.w + 1]); continue; }
        break;
      }
      case MARK: {  // y: build row register, z: the mark's condition, w: constants (join, mark)
        if (keep && !an && a == 1) {
          const JoinArg& j = p.joins[constants[in.w]];
          j.marks[constants[in.w + 1] * j.mark_stride + w.r[in.y]] = 1;
        }
        break;
      }
      case PACK: {  // y: destination, z: high 32 bits, w: low 32 bits (a two-column join key, as the build side packs it)
        // A value beyond 32 bits (a 64-bit column's) matches no build key, whose values all fit: the key is NULL.
        const long long b = w.r[in.w];
        const bool beyond = a != static_cast<long long>(static_cast<int>(a))
                            || b != static_cast<long long>(static_cast<int>(b));
        w.set(in.y, static_cast<long long>((static_cast<unsigned long long>(a) << 32)
                                          | static_cast<unsigned>(static_cast<int>(b))), an || w.is_null(in.w) || beyond);
        break;
      }
      case LOAD_BUILD: {  // y: destination, z: build row register, w: build column slot; loaded once per row
        const unsigned bit = 1u << (kMaxColumns + in.w);
        if (!(w.loaded & bit)) {
          const BuildColumnArg& c = p.build_columns[in.w];
          const bool null = an || !is_valid(c.validity, static_cast<unsigned long long>(a));
          w.set(in.y, null ? 0 : c.values[a], null);
          w.loaded |= bit;
        }
        break;
      }
      default: return false;
    }
    pc++;
  }
  return keep;
}

}  // namespace spillway
