package org.spillway.gpu.exec;

import java.util.ArrayList;
import java.util.List;

/**
 * The register program that the columnar_pipeline kernel interprets per row: the filter and project stages
 * before a pipeline's aggregation, flattened once into instructions {op, dst, a, b} over int64 registers,
 * plus the aggregation's key and argument registers. Registers 0..columns-1 hold the input columns the
 * program reads. AND, OR and CASE jump past what they do not need, so a row evaluates exactly the operands
 * the CPU backend evaluates for it (a guarded division never divides by zero on either device).
 */
final class GpuProgram {
  /** Registers per thread in the kernel (kMaxRegisters in columnar_pipeline.cu). */
  static final int MAX_REGISTERS = 64;
  /** Input columns a launch can take (kMaxColumns). */
  static final int MAX_COLUMNS = 12;
  /** Aggregate calls a launch can take (kMaxCalls). */
  static final int MAX_CALLS = 16;

  // Opcodes, as in columnar_pipeline.cu.
  static final int CONST = 0;
  static final int MOV = 1;
  static final int CMP_EQ = 2;
  static final int IN_RANGES = 8;
  static final int NOT = 9;
  static final int JUMP_IF_ZERO = 10;
  static final int JUMP = 11;
  static final int ADD = 12;
  static final int SUB = 13;
  static final int MUL = 14;
  static final int DIV = 15;
  static final int CHECK_INT32 = 16;
  static final int SCALE = 17;
  static final int YEAR = 18;
  static final int FILTER = 19;

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
  /** Per group key: register and packed width in bits (32 or 64). */
  final int[] keys;
  /** The expression each instruction belongs to, for error messages. */
  final Expr[] origins;

  private GpuProgram(Builder b, int[] calls, int[] keys) {
    this.code = b.code.stream().mapToInt(Integer::intValue).toArray();
    this.constants = b.constants.stream().mapToLong(Long::longValue).toArray();
    this.columns = b.columns.stream().mapToInt(Integer::intValue).toArray();
    this.wide = new boolean[columns.length];
    for (int i = 0; i < columns.length; i++) {
      wide[i] = b.inputTypes.get(columns[i]).width() == 8;
    }
    this.calls = calls;
    this.keys = keys;
    this.origins = b.origins.toArray(new Expr[0]);
  }

  int length() {
    return code.length / 4;
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
        b.emit(FILTER, 0, b.compile(f.condition(), current), 0, f.condition());
      } else if (stage instanceof PipelineStage.Project p) {
        List<Integer> next = new ArrayList<>();
        for (Expr e : p.expressions()) {
          next.add(b.compile(e, current));
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
    for (int c = 0; c < aggregate.calls().size(); c++) {
      AggCall call = aggregate.calls().get(c);
      if (call.argument() >= 0 && !types.get(call.argument()).isLong()) {
        throw new Unsupported(call.kind() + " of " + types.get(call.argument()) + " (only exact and long-lane values)");
      }
      calls[2 * c] = call.kind().ordinal();
      calls[2 * c + 1] = call.argument() < 0 ? 0 : b.register(current, call.argument());
    }
    int[] keys = new int[2 * aggregate.groupKeys().length];
    int bits = 0;
    for (int k = 0; k < aggregate.groupKeys().length; k++) {
      int key = aggregate.groupKeys()[k];
      int width = keyBits(types.get(key));
      bits += width;
      keys[2 * k] = b.register(current, key);
      keys[2 * k + 1] = width;
    }
    if (bits > 64) {
      throw new Unsupported("group keys " + keyTypes(aggregate.groupKeys(), types) + " need " + bits
          + " bits; the GPU hash table packs keys into 64");
    }
    return new GpuProgram(b, calls, keys);
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
    /** Registers 0..MAX_COLUMNS-1 are reserved for input columns. */
    int nextRegister = MAX_COLUMNS;

    Builder(List<ExprType> inputTypes) {
      this.inputTypes = inputTypes;
    }

    int pc() {
      return code.size() / 4;
    }

    int emit(int op, int dst, int a, int b, Expr origin) {
      code.add(op);
      code.add(dst);
      code.add(a);
      code.add(b);
      origins.add(origin);
      return a;
    }

    void patchTarget(int at, int target) {
      code.set(at * 4 + 3, target);
    }

    int fresh() {
      if (nextRegister == MAX_REGISTERS) {
        throw new Unsupported("expression program needs more than " + MAX_REGISTERS + " registers");
      }
      return nextRegister++;
    }

    int constant(long value) {
      constants.add(value);
      return constants.size() - 1;
    }

    /** The register of column {@code index} of the current stage input, loading an input column on first use. */
    int register(List<Integer> current, int index) {
      int reg = current.get(index);
      if (reg >= 0) {
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
      }
      current.set(index, at);
      return at;
    }

    /** Emits code leaving the value of {@code e} in the returned register. */
    int compile(Expr e, List<Integer> current) {
      if (!e.type().isLong()) {
        throw new Unsupported(e.type() + " values (" + e + ")");
      }
      if (e instanceof Expr.Column c) {
        return register(current, c.index());
      } else if (e instanceof Expr.Literal l) {
        if (l.value() == null) {
          throw new Unsupported("NULL literal (the kernel has no NULLs)");
        }
        int dst = fresh();
        emit(CONST, dst, 0, constant(((Number) l.value()).longValue()), e);
        return dst;
      } else if (e instanceof Expr.Compare c) {
        int a = compile(c.left(), current);
        int b = compile(c.right(), current);
        int dst = fresh();
        emit(CMP_EQ + c.op().ordinal(), dst, a, b, e);
        return dst;
      } else if (e instanceof Expr.InRanges r) {
        int a = compile(r.operand(), current);
        int first = constant(r.lows().length);
        for (int k = 0; k < r.lows().length; k++) {
          constant(r.lows()[k]);
          constant(r.highs()[k]);
        }
        int dst = fresh();
        emit(IN_RANGES, dst, a, first, e);
        return dst;
      } else if (e instanceof Expr.Logical l) {
        return logical(l, current);
      } else if (e instanceof Expr.Not n) {
        int dst = fresh();
        emit(NOT, dst, compile(n.operand(), current), 0, e);
        return dst;
      } else if (e instanceof Expr.IsNull n) {
        compile(n.operand(), current);  // evaluated as on the CPU (it may fail), though never NULL here
        int dst = fresh();
        emit(CONST, dst, 0, constant(n.negated() ? 1 : 0), e);
        return dst;
      } else if (e instanceof Expr.Arith a) {
        int x = compile(a.left(), current);
        int y = compile(a.right(), current);
        int dst = fresh();
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
        int dst = fresh();
        emit(YEAR, dst, compile(y.operand(), current), 0, e);
        return dst;
      }
      throw new Unsupported("expression " + e);
    }

    private int cast(Expr.Cast c, int operand) {
      ExprType from = c.operand().type();
      ExprType to = c.type();
      if (to.kind() == ExprType.Kind.DECIMAL && to.scale() > from.scale()) {
        int dst = fresh();
        emit(SCALE, dst, operand, constant(VectorArithmetic.powerOfTen(to.scale() - from.scale())), c);
        return dst;
      }
      if (to.kind() == ExprType.Kind.INT32 && !from.equals(to)) {
        emit(CHECK_INT32, 0, operand, 0, c);
      }
      return operand;  // same lane, same value
    }

    /** AND/OR: operands in order, jumping to the end as soon as one is decisive (Calcite's short circuit). */
    private int logical(Expr.Logical l, List<Integer> current) {
      int dst = fresh();
      int decisive = l.and() ? 0 : 1;
      emit(CONST, dst, 0, constant(decisive), l);
      List<Integer> exits = new ArrayList<>();
      for (Expr operand : l.operands()) {
        int x = compile(operand, current);
        if (l.and()) {
          exits.add(pc());
          emit(JUMP_IF_ZERO, x, 0, -1, l);
        } else {
          int test = fresh();
          emit(NOT, test, x, 0, l);
          int skip = pc();
          emit(JUMP_IF_ZERO, test, 0, -1, l);  // x was true: OR is decided
          exits.add(skip);
        }
      }
      emit(CONST, dst, 0, constant(1 - decisive), l);
      for (int at : exits) {
        patchTarget(at, pc());
      }
      return dst;
    }

    /** CASE: each WHEN only for rows no earlier WHEN took; each THEN only for the rows that chose it. */
    private int caseWhen(Expr.Case c, List<Integer> current) {
      int dst = fresh();
      List<Integer> ends = new ArrayList<>();
      for (int b = 0; b < c.conditions().size(); b++) {
        int cond = compile(c.conditions().get(b), current);
        int next = pc();
        emit(JUMP_IF_ZERO, cond, 0, -1, c);
        emit(MOV, dst, compile(c.values().get(b), current), 0, c);
        ends.add(pc());
        emit(JUMP, 0, 0, -1, c);
        patchTarget(next, pc());
      }
      emit(MOV, dst, compile(c.otherwise(), current), 0, c);
      for (int at : ends) {
        patchTarget(at, pc());
      }
      return dst;
    }
  }
}
