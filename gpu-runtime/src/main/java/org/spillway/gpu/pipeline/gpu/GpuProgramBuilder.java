package org.spillway.gpu.pipeline.gpu;

import org.spillway.gpu.expr.Expr;
import org.spillway.gpu.expr.VectorArithmetic;
import org.spillway.gpu.pipeline.PipelineStage;
import org.spillway.gpu.vector.ExprType;
import static org.spillway.gpu.pipeline.gpu.GpuProgram.ADD;
import static org.spillway.gpu.pipeline.gpu.GpuProgram.ALWAYS_NULLABLE;
import static org.spillway.gpu.pipeline.gpu.GpuProgram.CHECK_INT32;
import static org.spillway.gpu.pipeline.gpu.GpuProgram.CMP_EQ;
import static org.spillway.gpu.pipeline.gpu.GpuProgram.CONST;
import static org.spillway.gpu.pipeline.gpu.GpuProgram.CONST_NULL;
import static org.spillway.gpu.pipeline.gpu.GpuProgram.FADD;
import static org.spillway.gpu.pipeline.gpu.GpuProgram.FCMP_EQ;
import static org.spillway.gpu.pipeline.gpu.GpuProgram.FILTER;
import static org.spillway.gpu.pipeline.gpu.GpuProgram.IN_RANGES;
import static org.spillway.gpu.pipeline.gpu.GpuProgram.IS_NULL;
import static org.spillway.gpu.pipeline.gpu.GpuProgram.JUMP;
import static org.spillway.gpu.pipeline.gpu.GpuProgram.JUMP_IF_FALSE;
import static org.spillway.gpu.pipeline.gpu.GpuProgram.JUMP_IF_NOT_TRUE;
import static org.spillway.gpu.pipeline.gpu.GpuProgram.JUMP_IF_TRUE;
import static org.spillway.gpu.pipeline.gpu.GpuProgram.LIKE_TEXT;
import static org.spillway.gpu.pipeline.gpu.GpuProgram.LOAD;
import static org.spillway.gpu.pipeline.gpu.GpuProgram.LOAD_BUILD;
import static org.spillway.gpu.pipeline.gpu.GpuProgram.MARK;
import static org.spillway.gpu.pipeline.gpu.GpuProgram.PROBE_ALL;
import static org.spillway.gpu.pipeline.gpu.GpuProgram.PROBE_NEXT;
import static org.spillway.gpu.pipeline.gpu.GpuProgram.MAX_BUILD_COLUMNS;
import static org.spillway.gpu.pipeline.gpu.GpuProgram.PACK;
import static org.spillway.gpu.pipeline.gpu.GpuProgram.PROBE;
import static org.spillway.gpu.pipeline.gpu.GpuProgram.MAX_COLUMNS;
import static org.spillway.gpu.pipeline.gpu.GpuProgram.MAX_REGISTERS;
import static org.spillway.gpu.pipeline.gpu.GpuProgram.MERGE_NULL;
import static org.spillway.gpu.pipeline.gpu.GpuProgram.MOV;
import static org.spillway.gpu.pipeline.gpu.GpuProgram.NOT;
import static org.spillway.gpu.pipeline.gpu.GpuProgram.SCALE;
import static org.spillway.gpu.pipeline.gpu.GpuProgram.TO_DOUBLE;
import static org.spillway.gpu.pipeline.gpu.GpuProgram.YEAR;

import java.util.ArrayList;
import java.util.List;
import org.spillway.gpu.join.hash.JoinProbe;

/**
 * Accumulates the instructions of a {@link GpuProgram} from Filter, Project and hash-join probe stages and
 * expressions; one fresh register per expression node (programs are small). A stage column is a register
 * (loaded), an input column not yet loaded ({@code -1 - input}) or a build column of a probe not yet read
 * ({@link #buildRef}).
 */
final class GpuProgramBuilder {
  final List<ExprType> inputTypes;
  final List<Integer> code = new ArrayList<>();
  final List<Long> constants = new ArrayList<>();
  final List<Integer> columns = new ArrayList<>();
  final List<Expr> origins = new ArrayList<>();
  /** Per register: the column slots (bits) whose NULLs can make it NULL; ALWAYS_NULLABLE for NULL literals. */
  final long[] nullDeps = new long[MAX_REGISTERS];
  /** Registers 0..MAX_COLUMNS-1 are reserved for input columns. */
  int nextRegister = MAX_COLUMNS;
  /** Refuse literals that do not fit the width of their type (their values may reach a narrow output). */
  boolean narrowLiterals;
  /** Per probe stage: join kind, build key column and the register of its build row. */
  final List<Integer> joinKinds = new ArrayList<>();
  final List<int[]> joinBuildKeys = new ArrayList<>();
  final List<Integer> joinRows = new ArrayList<>();
  /** Per probe stage: the marks it sets per build row (GpuProgram.joinMarks). */
  final List<Integer> joinMarks = new ArrayList<>();
  /** Per build column slot: {probe, build column}, and the register it loads into. */
  final List<int[]> slots = new ArrayList<>();
  final List<Integer> slotRegisters = new ArrayList<>();

  /** Stage columns at or below this value name build columns: {@code BUILD_REF - (probe * BUILD_STRIDE + column)}. */
  private static final int BUILD_REF = -(1 << 24);
  private static final int BUILD_STRIDE = 1 << 12;

  GpuProgramBuilder(List<ExprType> inputTypes) {
    this.inputTypes = inputTypes;
  }

  int pc() {
    return code.size() / 4;
  }

  /** Compiles Filter and Project stages; returns the registers of their output columns (negative: not loaded). */
  List<Integer> stages(List<PipelineStage> stages) {
    List<Integer> current = new ArrayList<>();
    for (int i = 0; i < inputTypes.size(); i++) {
      current.add(-1 - i);  // input column i, register assigned on first use
    }
    for (PipelineStage stage : stages) {
      if (stage instanceof PipelineStage.Filter f) {
        filter(f.condition(), current);
      } else if (stage instanceof PipelineStage.Project p) {
        List<Integer> next = new ArrayList<>();
        for (Expr e : p.expressions()) {
          // a bare column stays unloaded (and unassigned) until something reads it
          next.add(e instanceof Expr.Column c ? current.get(c.index()) : compile(e, current));
        }
        current = next;
      } else if (stage instanceof PipelineStage.HashJoinProbe p) {
        current = probe(p.probe(), current);
      } else {
        throw new IllegalArgumentException("stage " + stage + " cannot precede the aggregation");
      }
    }
    return current;
  }

  /**
   * A PROBE of the join's key; returns the stage columns after it (the joined row for INNER and LEFT, whose build
   * columns are loaded where read). One key column of the long lane on both sides, or two whose values PACK into one
   * 64-bit key (a probe value beyond 32 bits then matches nothing, a build value beyond refuses the table at run time,
   * {@link GpuJoinTables#packed}), no residual (an inner join's
   * is a filter stage after the probe), and no kind that outputs build rows; a MARK_BUILD probe marks build rows in
   * GPU memory under its marks' conditions ({@link #marks}, {@link GpuJoinTables#marks}).
   */
  private List<Integer> probe(JoinProbe probe, List<Integer> current) {
    int kind = switch (probe.kind()) {
      case INNER -> GpuProgram.JOIN_INNER;
      case LEFT -> GpuProgram.JOIN_LEFT;
      case SEMI -> GpuProgram.JOIN_SEMI;
      case ANTI -> GpuProgram.JOIN_ANTI;
      case MARK_BUILD -> GpuProgram.JOIN_MARK;
      default -> throw new GpuProgram.Unsupported("a " + probe.kind() + " join probe (it outputs build rows)");
    };
    boolean marks = kind == GpuProgram.JOIN_MARK;
    if (!marks && probe.residual() != null) {
      throw new GpuProgram.Unsupported("a join condition beyond key equality on a " + probe.kind() + " join");
    }
    int keyCount = probe.probeKeys().length;
    if (keyCount > 2) {
      throw new GpuProgram.Unsupported("a join on " + keyCount + " key columns (the GPU probe takes one, or two of 32 bits)");
    }
    for (int k = 0; k < keyCount; k++) {
      ExprType probeType = probe.probeKeyTypes().get(k);
      ExprType buildType = probe.buildTypes().get(probe.buildKeys()[k]);
      if (!sameKeyLane(probeType, buildType)) {
        throw new GpuProgram.Unsupported("join keys of " + probeType + " and " + buildType
            + " (the GPU probe compares integer, date and same-scale decimal keys)");
      }
    }
    int join = joinKinds.size();
    int key = use(current, probe.probeKeys()[0]);
    if (keyCount == 2) {
      int low = use(current, probe.probeKeys()[1]);
      int packed = fresh(deps(key) | deps(low));
      emit(PACK, packed, key, low, null);
      key = packed;
    }
    int row = fresh(0);
    joinKinds.add(kind);
    joinBuildKeys.add(probe.buildKeys());
    joinRows.add(row);
    joinMarks.add(marks ? probe.markCount() : 0);
    buildTypes.add(probe.buildTypes());
    if (marks) {
      marks(probe, join, key, row, current);
      return current;
    }
    emit(PROBE, row, key, join, null);
    if (!probe.kind().projectsBuild()) {
      return current;
    }
    return joined(probe, join, current);
  }

  /** The joined row of probe {@code join}: its build columns (not yet read) and the stage columns, in its order. */
  private List<Integer> joined(JoinProbe probe, int join, List<Integer> current) {
    List<Integer> build = new ArrayList<>();
    for (int c = 0; c < probe.buildTypes().size(); c++) {
      build.add(BUILD_REF - (join * BUILD_STRIDE + c));
    }
    List<Integer> joined = new ArrayList<>(probe.buildFirst() ? build : current);
    joined.addAll(probe.buildFirst() ? current : build);
    return joined;
  }

  /**
   * The loop of a JOIN_MARK probe over every build row of the probe row's key (register {@code row}, its slot in
   * the next register): per mark, its condition over the joined row (none: the key match) and a MARK; then a FILTER
   * that passes no row on, as a marking probe outputs nothing.
   */
  private void marks(JoinProbe probe, int join, int key, int row, List<Integer> current) {
    fresh(0);  // row + 1: the slot of the build row, which PROBE_NEXT continues from
    int exit = constant(join);
    constant(-1);
    emit(PROBE_ALL, row, key, exit, null);
    int body = pc();
    for (int m = 0; m < probe.markCount(); m++) {
      Expr condition = probe.markCondition(m);
      int holds;
      if (condition == null) {
        holds = fresh(0);
        emit(CONST, holds, 0, constant(1), null);
      } else {
        holds = compile(condition, joined(probe, join, current));
      }
      int target = constant(join);
      constant(m);
      emit(MARK, row, holds, target, condition);
    }
    int next = constant(join);
    constant(body);
    emit(PROBE_NEXT, row, key, next, null);
    constants.set(exit + 1, (long) pc());
    int none = fresh(ALWAYS_NULLABLE);
    emit(CONST_NULL, none, 0, 0, null);
    emit(FILTER, 0, none, 0, null);
  }

  /** Per probe: its build side's column types. */
  private final List<List<ExprType>> buildTypes = new ArrayList<>();

  /** Whether every value of the type fits 32 bits (INT32 and DATE columns). */
  /** Whether keys of these types compare as the same 64-bit values. */
  private static boolean sameKeyLane(ExprType a, ExprType b) {
    boolean integerA = a.kind() == ExprType.Kind.INT32 || a.kind() == ExprType.Kind.INT64;
    boolean integerB = b.kind() == ExprType.Kind.INT32 || b.kind() == ExprType.Kind.INT64;
    if (integerA || integerB) {
      return integerA && integerB;
    }
    return a.kind() == b.kind() && a.scale() == b.scale()
        && (a.kind() == ExprType.Kind.DATE || a.kind() == ExprType.Kind.DECIMAL);
  }

  /**
   * For a stage column that is an INNER probe's build column of a type the kernel computes no values of (TEXT, say):
   * {probe, build column}, whose rows the host gathers at the build row ids the GPU returns; else null.
   */
  int[] gatheredBuildColumn(int ref) {
    if (ref > BUILD_REF) {
      return null;
    }
    int join = (BUILD_REF - ref) / BUILD_STRIDE;
    int column = (BUILD_REF - ref) % BUILD_STRIDE;
    ExprType type = buildTypes.get(join).get(column);
    boolean computed = type.isLong() && type.kind() != ExprType.Kind.BOOLEAN;
    return computed || joinKinds.get(join) != GpuProgram.JOIN_INNER ? null : new int[] {join, column};
  }

  /** The register holding probe {@code join}'s build row (never NULL for an INNER probe's selected rows). */
  int buildRowRegister(int join) {
    return joinRows.get(join);
  }

  /** The register of a build column, loaded here (a LOAD_BUILD at every use, executed once per row). */
  private int useBuild(int ref) {
    int join = ref / BUILD_STRIDE;
    int column = ref % BUILD_STRIDE;
    ExprType type = buildTypes.get(join).get(column);
    if (!(type.isLong() || isDouble(type)) || type.kind() == ExprType.Kind.BOOLEAN) {
      throw new GpuProgram.Unsupported("build column of type " + type + " (the GPU probe reads integer and FLOAT64"
          + " columns)");
    }
    int slot = -1;
    for (int s = 0; s < slots.size(); s++) {
      if (slots.get(s)[0] == join && slots.get(s)[1] == column) {
        slot = s;
      }
    }
    if (slot < 0) {
      if (slots.size() == MAX_BUILD_COLUMNS) {
        throw new GpuProgram.Unsupported("more than " + MAX_BUILD_COLUMNS + " build-side columns");
      }
      slots.add(new int[] {join, column});
      slot = slots.size() - 1;
      slotRegisters.add(fresh(1L << (MAX_COLUMNS + slot)));
    }
    int reg = slotRegisters.get(slot);
    emit(LOAD_BUILD, reg, joinRows.get(join), slot, null);
    return reg;
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
      throw new GpuProgram.Unsupported("expression program needs more than " + MAX_REGISTERS + " registers");
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
    if (reg <= BUILD_REF) {
      return useBuild(BUILD_REF - reg);
    }
    if (reg >= 0) {
      if (reg < MAX_COLUMNS) {
        emit(LOAD, 0, reg, 0, null);
      }
      return reg;
    }
    int input = -1 - reg;
    ExprType type = inputTypes.get(input);
    if (!type.isLong() || type.kind() == ExprType.Kind.BOOLEAN) {
      throw new GpuProgram.Unsupported("input column $" + input + " of type " + type + " (the kernel reads 4- and 8-byte"
          + " integer columns)");
    }
    int at = columns.indexOf(input);
    if (at < 0) {
      if (columns.size() == MAX_COLUMNS) {
        throw new GpuProgram.Unsupported("more than " + MAX_COLUMNS + " input columns");
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
    if (e instanceof Expr.BigDecimalArith) {
      throw new GpuProgram.Unsupported("BigDecimal arithmetic " + e + " (decimal quotients and wide sums are"
          + " computed by the CPU backend)");
    }
    if (e instanceof Expr.Like l) {
      return like(l, current);
    }
    Expr.Like prefix = prefixLike(e);
    if (prefix != null) {
      return like(prefix, current);
    }
    if (e instanceof Expr.IsNull n && n.operand().type().kind() == ExprType.Kind.TEXT) {
      // plain text is NULL where LIKE '%' is (a SUBSTRING where its operand is: a Sarg's NULL test of Q22's codes)
      Expr text = n.operand() instanceof Expr.Substring s ? s.operand() : n.operand();
      return compile(new Expr.IsNull(Expr.Like.of(text, "%", null), n.negated()), current);
    }
    if (!e.type().isLong() && !isDouble(e.type())) {
      throw new GpuProgram.Unsupported(e.type() + " values (" + e + ")");
    }
    if (e instanceof Expr.Column c) {
      return use(current, c.index());
    } else if (e instanceof Expr.Literal l) {
      if (l.value() == null) {
        int dst = fresh(ALWAYS_NULLABLE);
        emit(CONST_NULL, dst, 0, 0, e);
        return dst;
      }
      long value = isDouble(l.type()) ? Double.doubleToRawLongBits(((Number) l.value()).doubleValue())
          : ((Number) l.value()).longValue();
      if (narrowLiterals && !fitsItsWidth(l.type(), value)) {
        throw new GpuProgram.Unsupported("literal " + value + " of type " + l.type()
            + " (outside what its output column holds)");
      }
      int dst = fresh(0);
      emit(CONST, dst, 0, constant(value), e);
      return dst;
    } else if (e instanceof Expr.Compare c) {
      int a = compile(c.left(), current);
      int b = compile(c.right(), current);
      int dst = fresh(deps(a) | deps(b));
      emit((isDouble(c.left().type()) ? FCMP_EQ : CMP_EQ) + c.op().ordinal(), dst, a, b, e);
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
      emit((isDouble(a.type()) ? FADD : ADD) + a.op().ordinal(), dst, x, y, e);
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
    throw new GpuProgram.Unsupported("expression " + e);
  }

  /**
   * {@code SUBSTRING(text FROM 1 FOR n) = 'literal'}, the literal n ASCII characters other than {@code %} and
   * {@code _}, as the {@code LIKE 'literal%'} it equals (TPC-H Q22's country codes): a value's first n UTF-16 units are
   * those characters exactly when its first n UTF-8 bytes are their bytes, and the substring of a shorter value is
   * shorter than the literal. Null for any other expression.
   */
  static Expr.Like prefixLike(Expr e) {
    if (!(e instanceof Expr.Compare c) || c.op() != Expr.CompareOp.EQ) {
      return null;
    }
    boolean left = c.left() instanceof Expr.Substring;
    Expr.Substring substring = left ? (Expr.Substring) c.left()
        : c.right() instanceof Expr.Substring s ? s : null;
    Expr other = left ? c.right() : c.left();
    if (substring == null || substring.start() != 1 || !(other instanceof Expr.Literal literal)
        || !(literal.value() instanceof String text) || text.length() != substring.length()) {
      return null;
    }
    for (int i = 0; i < text.length(); i++) {
      char ch = text.charAt(i);
      if (ch == 0 || ch > 127 || ch == '%' || ch == '_') {
        return null;
      }
    }
    return Expr.Like.of(substring.operand(), text + "%", null);
  }

  /**
   * LIKE_TEXT of an input column of plain text and a pattern of literal pieces between {@code %}s
   * ({@link GpuLikePattern}); the column gets a slot of its own, which nothing reads as a value.
   */
  private int like(Expr.Like l, List<Integer> current) {
    long[] pattern = GpuLikePattern.constants(l);
    int reg = l.operand() instanceof Expr.Column c ? current.get(c.index()) : 0;
    if (reg >= 0 || reg <= BUILD_REF) {
      throw new GpuProgram.Unsupported(l + " over anything but a scanned text column (the GPU reads the text of"
          + " input columns only)");
    }
    int input = -1 - reg;
    int slot = columns.indexOf(input);
    if (slot < 0) {
      if (columns.size() == MAX_COLUMNS) {
        throw new GpuProgram.Unsupported("more than " + MAX_COLUMNS + " input columns");
      }
      columns.add(input);
      slot = columns.size() - 1;
      nullDeps[slot] = 1L << slot;
    }
    int first = constant(pattern[0]);
    for (int i = 1; i < pattern.length; i++) {
      constant(pattern[i]);
    }
    int dst = fresh(deps(slot));
    emit(LIKE_TEXT, dst, slot, first, l);
    return dst;
  }

  private int cast(Expr.Cast c, int operand) {
    ExprType from = c.operand().type();
    ExprType to = c.type();
    if (isDouble(to) && !from.equals(to)) {  // from an exact kind (BIG_DECIMAL operands are refused before)
      int dst = fresh(deps(operand));
      emit(TO_DOUBLE, dst, operand, constant(VectorArithmetic.powerOfTen(from.scale())), c);
      return dst;
    }
    if (c.precision() > 0 || to.scale() < from.scale()) {
      throw new GpuProgram.Unsupported(c + " (the kernel neither rounds decimals nor checks their precision)");
    }
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

  private static boolean isDouble(ExprType type) {
    return type.kind() == ExprType.Kind.FLOAT64;
  }

  /** Whether a literal of {@code type} fits the 1- or 4-byte output column of its type (BOOLEAN: 0 or 1). */
  private static boolean fitsItsWidth(ExprType type, long value) {
    return switch (type.kind()) {
      case BOOLEAN -> value == 0 || value == 1;
      case INT32, DATE, STRING -> value == (int) value;
      default -> true;
    };
  }
}
