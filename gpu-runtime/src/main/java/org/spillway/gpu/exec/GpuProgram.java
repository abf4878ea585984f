package org.spillway.gpu.exec;

import java.util.ArrayList;
import java.util.List;

/**
 * The register program that the columnar_pipeline kernel interprets per row: the filter and project stages
 * before a pipeline's aggregation, flattened once into instructions {op, dst, a, b} over int64 registers,
 * each with a NULL flag, plus the aggregation's key and argument registers. Registers 0..MAX_COLUMNS-1 hold
 * the input columns the program reads, loaded by a LOAD at each use (a no-op once loaded), so that under
 * BRANCHING a row the filters reject never loads the columns only later stages read. A filter's top-level
 * conjuncts become one FILTER each (the CPU backend drops a row at the first conjunct that is not TRUE);
 * AND, OR and CASE jump past what they do not need, so a row evaluates exactly the operands the CPU backend
 * evaluates for it (a guarded division never divides by zero on either device). AND and OR follow Kleene's
 * logic: a NULL operand does not decide, a later FALSE (AND) or TRUE (OR) still does.
 */
final class GpuProgram {
  /** Registers per thread in the kernel (kMaxRegisters in columnar_pipeline.cu): one bit each in a NULL mask. */
  static final int MAX_REGISTERS = 64;
  /** Input columns a launch can take (kMaxColumns in pipeline_chunks.cuh). */
  static final int MAX_COLUMNS = 12;
  /** Aggregate calls a launch can take (kMaxCalls). */
  static final int MAX_CALLS = 16;
  /** Bit of a NULL-dependency mask meaning "NULL whatever the columns hold" (a NULL literal). */
  static final long ALWAYS_NULLABLE = 1L << 63;

  // Opcodes, as in columnar_pipeline.cu.
  static final int LOAD = 0;
  static final int CONST = 1;
  static final int CONST_NULL = 2;
  static final int MOV = 3;
  static final int CMP_EQ = 4;
  static final int IN_RANGES = 10;
  static final int NOT = 11;
  static final int IS_NULL = 12;
  static final int JUMP_IF_FALSE = 13;
  static final int JUMP_IF_TRUE = 14;
  static final int JUMP_IF_NOT_TRUE = 15;
  static final int JUMP = 16;
  static final int MERGE_NULL = 17;
  static final int ADD = 18;
  static final int CHECK_INT32 = 22;
  static final int SCALE = 23;
  static final int YEAR = 24;
  static final int FILTER = 25;

  /** Thrown while compiling when the GPU cannot run something; the message is the reason. */
  static final class Unsupported extends RuntimeException {
    Unsupported(String reason) {
      super(reason, null, false, false);
    }
  }

  /** Instructions, four ints each. */
  final int[] code;
  final long[] constants;
  /** Pipeline input column read into register i, for i below the count of used columns. */
  final int[] columns;
  /** Whether input column {@code columns[i]} is 8 bytes wide (else 4). */
  final boolean[] wide;
  /** Per aggregate call: kind ordinal and argument register (-1 for COUNT(*)). */
  final int[] calls;
  /** Per aggregate call: the columns (bits of register numbers) whose NULLs can make its argument NULL. */
  final long[] callNullDeps;
  /** Per group key: register and packed width in bits (32 or 64). */
  final int[] keys;
  /** Per group key: the columns whose NULLs can make it NULL, as for calls. */
  final long[] keyNullDeps;
  /** The expression each instruction belongs to, for error messages. */
  final Expr[] origins;

  private GpuProgram(Builder b, int[] calls, long[] callNullDeps, int[] keys, long[] keyNullDeps) {
    this.code = b.code.stream().mapToInt(Integer::intValue).toArray();
    this.constants = b.constants.stream().mapToLong(Long::longValue).toArray();
    this.columns = b.columns.stream().mapToInt(Integer::intValue).toArray();
    this.wide = new boolean[columns.length];
    for (int i = 0; i < columns.length; i++) {
      wide[i] = b.inputTypes.get(columns[i]).width() == 8;
    }
    this.calls = calls;
    this.callNullDeps = callNullDeps;
    this.keys = keys;
    this.keyNullDeps = keyNullDeps;
    this.origins = b.origins.toArray(new Expr[0]);
  }

  int length() {
    return code.length / 4;
  }

  /** Bit c set when column slot c is 8 bytes wide. */
  int wideMask() {
    int mask = 0;
    for (int c = 0; c < wide.length; c++) {
      mask |= wide[c] ? 1 << c : 0;
    }
    return mask;
  }

  /** Whether a value with these NULL dependencies can be NULL when the columns of {@code nullableColumns} hold NULLs. */
  static boolean mayBeNull(long deps, long nullableColumns) {
    return (deps & (nullableColumns | ALWAYS_NULLABLE)) != 0;
  }

  /**
   * Compiles the stages before {@code aggregate} (Filter and Project) and the aggregate itself; throws
   * {@link Unsupported} with the reason when the kernel cannot run them exactly.
   */
  static GpuProgram compile(List<ExprType> inputTypes, List<PipelineStage> before, PipelineStage.Aggregate aggregate) {
    Builder b = new Builder(inputTypes);
    List<Integer> current = new ArrayList<>();
    for (int i = 0; i < inputTypes.size(); i++) {
      current.add(-1 - i);  // input column i, register assigned on first use
    }
    for (PipelineStage stage : before) {
      if (stage instanceof PipelineStage.Filter f) {
        b.filter(f.condition(), current);
      } else if (stage instanceof PipelineStage.Project p) {
        List<Integer> next = new ArrayList<>();
        for (Expr e : p.expressions()) {
          // a bare column stays unloaded (and unassigned) until something reads it
          next.add(e instanceof Expr.Column c ? current.get(c.index()) : b.compile(e, current));
        }
        current = next;
      } else {
        throw new IllegalArgumentException("stage " + stage + " cannot precede the aggregation");
      }
    }
    List<ExprType> types = inputTypes;
    for (PipelineStage stage : before) {
      types = stage.outputTypes(types);
    }
    if (aggregate.calls().size() > MAX_CALLS) {
      throw new Unsupported(aggregate.calls().size() + " aggregate calls; the kernel takes " + MAX_CALLS);
    }
    int[] calls = new int[2 * aggregate.calls().size()];
    long[] callNullDeps = new long[aggregate.calls().size()];
    for (int c = 0; c < aggregate.calls().size(); c++) {
      AggCall call = aggregate.calls().get(c);
      if (call.argument() >= 0 && !types.get(call.argument()).isLong()) {
        throw new Unsupported(call.kind() + " of " + types.get(call.argument()) + " (only exact and long-lane values)");
      }
      calls[2 * c] = call.kind().ordinal();
      calls[2 * c + 1] = call.argument() < 0 ? -1 : b.use(current, call.argument());
      callNullDeps[c] = call.argument() < 0 ? 0 : b.deps(calls[2 * c + 1]);
    }
    int[] keys = new int[2 * aggregate.groupKeys().length];
    long[] keyNullDeps = new long[aggregate.groupKeys().length];
    int bits = 0;
    for (int k = 0; k < aggregate.groupKeys().length; k++) {
      int key = aggregate.groupKeys()[k];
      int width = keyBits(types.get(key));
      bits += width;
      keys[2 * k] = b.use(current, key);
      keys[2 * k + 1] = width;
      keyNullDeps[k] = b.deps(keys[2 * k]);
    }
    if (bits > 64) {
      throw new Unsupported("group keys " + keyTypes(aggregate.groupKeys(), types) + " need " + bits
          + " bits; the GPU hash table packs keys into 64");
    }
    return new GpuProgram(b, calls, callNullDeps, keys, keyNullDeps);
  }

  /**
   * The NULL flag bit of each group key in the packed 64-bit key when the columns of {@code nullableColumns}
   * hold NULLs: -1 for a key that cannot be NULL, else a bit above the packed values. Null when the flags do
   * not fit beside the values.
   */
  int[] keyNullBits(long nullableColumns) {
    int[] out = new int[keys.length / 2];
    int next = 0;
    for (int k = 0; k < out.length; k++) {
      next += keys[2 * k + 1];
    }
    for (int k = 0; k < out.length; k++) {
      out[k] = mayBeNull(keyNullDeps[k], nullableColumns) ? next++ : -1;
    }
    return next > 64 ? null : out;
  }

  /** Bits of a key in the packed 64-bit group key: 32 for values that always fit an int, else 64. */
  private static int keyBits(ExprType type) {
    return switch (type.kind()) {
      case INT32, DATE, STRING, BOOLEAN -> 32;
      case INT64, DECIMAL -> 64;
      default -> throw new Unsupported("group key of type " + type);
    };
  }

  private static List<ExprType> keyTypes(int[] keys, List<ExprType> types) {
    List<ExprType> out = new ArrayList<>();
    for (int k : keys) {
      out.add(types.get(k));
    }
    return out;
  }

  /** Accumulates instructions; one fresh register per expression node (programs are small). */
  private static final class Builder {
    final List<ExprType> inputTypes;
    final List<Integer> code = new ArrayList<>();
    final List<Long> constants = new ArrayList<>();
    final List<Integer> columns = new ArrayList<>();
    final List<Expr> origins = new ArrayList<>();
    /** Per register: the column slots (bits) whose NULLs can make it NULL; ALWAYS_NULLABLE for NULL literals. */
    final long[] nullDeps = new long[MAX_REGISTERS];
    /** Registers 0..MAX_COLUMNS-1 are reserved for input columns. */
    int nextRegister = MAX_COLUMNS;

    Builder(List<ExprType> inputTypes) {
      this.inputTypes = inputTypes;
    }

    int pc() {
      return code.size() / 4;
    }

    void emit(int op, int dst, int a, int b, Expr origin) {
      code.add(op);
      code.add(dst);
      code.add(a);
      code.add(b);
      origins.add(origin);
    }

    void patchTarget(int at, int target) {
      code.set(at * 4 + 3, target);
    }

    int fresh(long deps) {
      if (nextRegister == MAX_REGISTERS) {
        throw new Unsupported("expression program needs more than " + MAX_REGISTERS + " registers");
      }
      nullDeps[nextRegister] = deps;
      return nextRegister++;
    }

    long deps(int register) {
      return register < 0 ? 0 : nullDeps[register];
    }

    int constant(long value) {
      constants.add(value);
      return constants.size() - 1;
    }

    /**
     * The register of column {@code index} of the current stage input, loaded here: an input column gets a
     * register on first use and a LOAD at every use (the kernel loads it at the first one it executes).
     */
    int use(List<Integer> current, int index) {
      int reg = current.get(index);
      if (reg >= 0) {
        if (reg < MAX_COLUMNS) {
          emit(LOAD, 0, reg, 0, null);
        }
        return reg;
      }
      int input = -1 - reg;
      ExprType type = inputTypes.get(input);
      if (!type.isLong() || type.kind() == ExprType.Kind.BOOLEAN) {
        throw new Unsupported("input column $" + input + " of type " + type + " (the kernel reads 4- and 8-byte"
            + " integer columns)");
      }
      int at = columns.indexOf(input);
      if (at < 0) {
        if (columns.size() == MAX_COLUMNS) {
          throw new Unsupported("more than " + MAX_COLUMNS + " input columns");
        }
        columns.add(input);
        at = columns.size() - 1;
        nullDeps[at] = 1L << at;
      }
      for (int i = 0; i < current.size(); i++) {  // every stage column naming this input now names the register
        if (current.get(i) == reg) {
          current.set(i, at);
        }
      }
      emit(LOAD, 0, at, 0, null);
      return at;
    }

    /** FILTER per top-level conjunct, as the CPU backend applies them one after the other. */
    void filter(Expr condition, List<Integer> current) {
      if (condition instanceof Expr.Logical l && l.and()) {
        for (Expr conjunct : l.operands()) {
          filter(conjunct, current);
        }
        return;
      }
      emit(FILTER, 0, compile(condition, current), 0, condition);
    }

    /** Emits code leaving the value of {@code e} in the returned register. */
    int compile(Expr e, List<Integer> current) {
      if (!e.type().isLong()) {
        throw new Unsupported(e.type() + " values (" + e + ")");
      }
      if (e instanceof Expr.Column c) {
        return use(current, c.index());
      } else if (e instanceof Expr.Literal l) {
        if (l.value() == null) {
          int dst = fresh(ALWAYS_NULLABLE);
          emit(CONST_NULL, dst, 0, 0, e);
          return dst;
        }
        int dst = fresh(0);
        emit(CONST, dst, 0, constant(((Number) l.value()).longValue()), e);
        return dst;
      } else if (e instanceof Expr.Compare c) {
        int a = compile(c.left(), current);
        int b = compile(c.right(), current);
        int dst = fresh(deps(a) | deps(b));
        emit(CMP_EQ + c.op().ordinal(), dst, a, b, e);
        return dst;
      } else if (e instanceof Expr.InRanges r) {
        int a = compile(r.operand(), current);
        int first = constant(r.lows().length);
        constant(r.nullAs() == null ? -1 : r.nullAs() ? 1 : 0);
        for (int k = 0; k < r.lows().length; k++) {
          constant(r.lows()[k]);
          constant(r.highs()[k]);
        }
        int dst = fresh(r.nullAs() == null ? deps(a) : 0);
        emit(IN_RANGES, dst, a, first, e);
        return dst;
      } else if (e instanceof Expr.Logical l) {
        return logical(l, current);
      } else if (e instanceof Expr.Not n) {
        int a = compile(n.operand(), current);
        int dst = fresh(deps(a));
        emit(NOT, dst, a, 0, e);
        return dst;
      } else if (e instanceof Expr.IsNull n) {
        int a = compile(n.operand(), current);
        int dst = fresh(0);
        emit(IS_NULL, dst, a, n.negated() ? 1 : 0, e);
        return dst;
      } else if (e instanceof Expr.Arith a) {
        int x = compile(a.left(), current);
        int y = compile(a.right(), current);
        int dst = fresh(deps(x) | deps(y));
        emit(ADD + a.op().ordinal(), dst, x, y, e);
        if (a.type().kind() == ExprType.Kind.INT32) {
          emit(CHECK_INT32, 0, dst, 0, e);
        }
        return dst;
      } else if (e instanceof Expr.Cast c) {
        return cast(c, compile(c.operand(), current));
      } else if (e instanceof Expr.Case c) {
        return caseWhen(c, current);
      } else if (e instanceof Expr.ExtractYear y) {
        int a = compile(y.operand(), current);
        int dst = fresh(deps(a));
        emit(YEAR, dst, a, 0, e);
        return dst;
      }
      throw new Unsupported("expression " + e);
    }

    private int cast(Expr.Cast c, int operand) {
      ExprType from = c.operand().type();
      ExprType to = c.type();
      if (to.kind() == ExprType.Kind.DECIMAL && to.scale() > from.scale()) {
        int dst = fresh(deps(operand));
        emit(SCALE, dst, operand, constant(VectorArithmetic.powerOfTen(to.scale() - from.scale())), c);
        return dst;
      }
      if (to.kind() == ExprType.Kind.INT32 && !from.equals(to)) {
        emit(CHECK_INT32, 0, operand, 0, c);
      }
      return operand;  // same lane, same value
    }

    /**
     * AND/OR with Kleene's logic and Calcite's short circuit: operands in order, jumping to the end as soon
     * as one is decisive (FALSE for AND, TRUE for OR); a NULL operand makes the result NULL unless a later
     * one decides.
     */
    private int logical(Expr.Logical l, List<Integer> current) {
      long deps = 0;
      int dst = fresh(0);
      emit(CONST, dst, 0, constant(l.and() ? 1 : 0), l);
      List<Integer> decided = new ArrayList<>();
      for (Expr operand : l.operands()) {
        int x = compile(operand, current);
        deps |= deps(x);
        decided.add(pc());
        emit(l.and() ? JUMP_IF_FALSE : JUMP_IF_TRUE, 0, x, -1, l);
        emit(MERGE_NULL, dst, x, 0, l);
      }
      int end = pc();
      emit(JUMP, 0, 0, -1, l);
      for (int at : decided) {
        patchTarget(at, pc());
      }
      emit(CONST, dst, 0, constant(l.and() ? 0 : 1), l);
      patchTarget(end, pc());
      nullDeps[dst] = deps;
      return dst;
    }

    /** CASE: each WHEN only for rows no earlier WHEN took (a NULL WHEN is not taken); each THEN only for its rows. */
    private int caseWhen(Expr.Case c, List<Integer> current) {
      int dst = fresh(0);
      long deps = 0;
      List<Integer> ends = new ArrayList<>();
      for (int b = 0; b < c.conditions().size(); b++) {
        int cond = compile(c.conditions().get(b), current);
        int next = pc();
        emit(JUMP_IF_NOT_TRUE, 0, cond, -1, c);
        int value = compile(c.values().get(b), current);
        deps |= deps(value);
        emit(MOV, dst, value, 0, c);
        ends.add(pc());
        emit(JUMP, 0, 0, -1, c);
        patchTarget(next, pc());
      }
      int otherwise = compile(c.otherwise(), current);
      deps |= deps(otherwise);
      emit(MOV, dst, otherwise, 0, c);
      for (int at : ends) {
        patchTarget(at, pc());
      }
      nullDeps[dst] = deps;
      return dst;
    }
  }
}
