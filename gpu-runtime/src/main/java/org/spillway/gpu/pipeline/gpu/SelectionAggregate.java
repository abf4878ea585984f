package org.spillway.gpu.pipeline.gpu;

import org.spillway.gpu.expr.AggCall;
import org.spillway.gpu.expr.Expr;
import org.spillway.gpu.pipeline.PipelineStage;
import org.spillway.gpu.vector.ExprType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The hot shape of TPC-H Q6 (Pump Up the Volume, Sec. 7.2.4: selection, then aggregation) that the
 * selection_aggregate kernels run instead of the register program: filters that are conjunctions of range
 * predicates on input columns (comparisons with literals, BETWEEN, single-range SEARCH), projections of
 * input columns and of products of two input columns, and one global aggregate of SUM, SUM0 and COUNT over
 * them. {@link #match} recognizes it exactly: anything else (another operator, a product that no SUM reads,
 * MIN or MAX, a second range, a filter after a product) keeps the interpreter, so that both kernels
 * compute and fail identically.
 * The kernels read no validity bitmaps: the pipeline uses this shape only for batches without NULLs.
 */
final class SelectionAggregate {
  /** Predicates (one per column, ranges of the same column intersected) a launch takes: kMaxPredicates. */
  static final int MAX_PREDICATES = 4;
  /** SUM calls a launch takes: kMaxSums. */
  static final int MAX_SUMS = 4;
  /** Rows per tile of the kernels (256 threads times 4 rows). */
  static final long TILE_ROWS = 1024;

  /** Rows pass when column slot {@code slot} holds a value in [low, high]. */
  record Predicate(int slot, long low, long high) {}

  /** SUM of slot {@code left} (times slot {@code right} unless -1) into aggregate call {@code call}. */
  record Sum(int call, int left, int right, Expr product) {}

  final List<Predicate> predicates;
  final List<Sum> sums;

  private SelectionAggregate(List<Predicate> predicates, List<Sum> sums) {
    this.predicates = List.copyOf(predicates);
    this.sums = List.copyOf(sums);
  }

  /** A value of a stage column: input column {@code left}, or its product with {@code right} (else -1). */
  private record Operand(int left, int right, Expr product) {}

  /** The shape of these stages, with the column slots of {@code program}; null when they are not that shape. */
  static SelectionAggregate match(List<ExprType> inputTypes, List<PipelineStage> before,
      PipelineStage.Aggregate aggregate, GpuProgram program) {
    List<Operand> current = new ArrayList<>();
    for (int i = 0; i < inputTypes.size(); i++) {
      current.add(new Operand(i, -1, null));
    }
    Map<Integer, long[]> ranges = new LinkedHashMap<>();  // input column -> [low, high], in first-use order
    List<Expr> products = new ArrayList<>();
    for (PipelineStage stage : before) {
      if (stage instanceof PipelineStage.Filter f) {
        // the kernel multiplies only rows that pass every filter; the CPU, rows that passed the ones before
        if (!products.isEmpty() || !conjunction(f.condition(), current, ranges)) {
          return null;
        }
      } else if (stage instanceof PipelineStage.Project p) {
        List<Operand> next = new ArrayList<>();
        for (Expr e : p.expressions()) {
          Operand o = operand(e, current);
          if (o == null) {
            return null;
          }
          if (o.product() != null && !products.contains(o.product())) {
            products.add(o.product());
          }
          next.add(o);
        }
        current = next;
      } else {
        return null;
      }
    }
    if (aggregate.groupKeys().length > 0 || ranges.size() > MAX_PREDICATES) {
      return null;
    }
    List<Sum> sums = new ArrayList<>();
    List<Expr> summed = new ArrayList<>();
    for (int c = 0; c < aggregate.calls().size(); c++) {
      AggCall call = aggregate.calls().get(c);
      if (call.kind() == AggCall.Kind.COUNT) {
        continue;  // the selected row count (no NULLs reach this kernel)
      }
      if (call.kind() != AggCall.Kind.SUM && call.kind() != AggCall.Kind.SUM0) {
        return null;
      }
      Operand o = current.get(call.argument());
      sums.add(new Sum(c, slot(program, o.left()), o.right() < 0 ? -1 : slot(program, o.right()), o.product()));
      summed.add(o.product());
    }
    // a product the CPU computes but no SUM reads could fail there (overflow) and not here
    if (sums.size() > MAX_SUMS || !summed.containsAll(products)) {
      return null;
    }
    List<Predicate> predicates = new ArrayList<>();
    ranges.forEach((column, range) -> predicates.add(new Predicate(slot(program, column), range[0], range[1])));
    return new SelectionAggregate(predicates, sums);
  }

  private static int slot(GpuProgram program, int input) {
    for (int s = 0; s < program.columns.length; s++) {
      if (program.columns[s] == input) {
        return s;
      }
    }
    throw new IllegalStateException("input column $" + input + " is not read by the program " + program);
  }

  /** Adds the ranges of a conjunction of range predicates; false when it is something else. */
  private static boolean conjunction(Expr e, List<Operand> current, Map<Integer, long[]> ranges) {
    if (e instanceof Expr.Logical l && l.and()) {
      for (Expr operand : l.operands()) {
        if (!conjunction(operand, current, ranges)) {
          return false;
        }
      }
      return true;
    }
    long[] range = null;
    int column = -1;
    if (e instanceof Expr.Compare c) {
      Integer left = column(c.left(), current);
      Integer right = column(c.right(), current);
      if (left != null && literal(c.right()) != null) {
        column = left;
        range = range(c.op(), literal(c.right()));
      } else if (right != null && literal(c.left()) != null) {
        column = right;
        range = range(c.op().swapped(), literal(c.left()));
      }
    } else if (e instanceof Expr.InRanges r && r.lows().length <= 1) {
      Integer operand = column(r.operand(), current);
      if (operand != null) {
        column = operand;
        range = r.lows().length == 0 ? new long[] {1, 0} : new long[] {r.lows()[0], r.highs()[0]};
      }
    }
    if (range == null) {
      return false;
    }
    long[] merged = ranges.computeIfAbsent(column, k -> new long[] {Long.MIN_VALUE, Long.MAX_VALUE});
    merged[0] = Math.max(merged[0], range[0]);
    merged[1] = Math.min(merged[1], range[1]);
    return true;
  }

  /** The inclusive range of values v with {@code v op literal}; null for NE (two ranges). */
  private static long[] range(Expr.CompareOp op, long v) {
    return switch (op) {
      case EQ -> new long[] {v, v};
      case LT -> v == Long.MIN_VALUE ? new long[] {1, 0} : new long[] {Long.MIN_VALUE, v - 1};
      case LE -> new long[] {Long.MIN_VALUE, v};
      case GT -> v == Long.MAX_VALUE ? new long[] {1, 0} : new long[] {v + 1, Long.MAX_VALUE};
      case GE -> new long[] {v, Long.MAX_VALUE};
      case NE -> null;
    };
  }

  private static Long literal(Expr e) {
    return e instanceof Expr.Literal l && l.value() instanceof Long v ? v : null;
  }

  /** The input column a stage value is, through value-preserving casts; null if it is not one. */
  private static Integer column(Expr e, List<Operand> current) {
    if (e instanceof Expr.Column c) {
      Operand o = current.get(c.index());
      return o.right() < 0 ? o.left() : null;
    }
    if (e instanceof Expr.Cast c && c.preservesValue()) {
      return column(c.operand(), current);
    }
    return null;
  }

  /** A projected value: a column, or a checked product of two columns into an exact 64-bit type; else null. */
  private static Operand operand(Expr e, List<Operand> current) {
    if (e instanceof Expr.Column c) {
      return current.get(c.index());
    }
    Integer column = column(e, current);
    if (column != null) {
      return new Operand(column, -1, null);
    }
    if (e instanceof Expr.Arith a && a.op() == Expr.ArithOp.TIMES && a.type().kind() != ExprType.Kind.INT32) {
      Integer left = column(a.left(), current);
      Integer right = column(a.right(), current);
      if (left != null && right != null) {
        return new Operand(left, right, e);
      }
    }
    return null;
  }

  /** The SelectionArg words of selection_aggregate.cu for a program whose 8-byte column slots are {@code wideMask}. */
  long[] argument(int wideMask) {
    long[] w = new long[1 + 3 * MAX_PREDICATES + 1 + 6 * MAX_SUMS + 1];
    w[0] = predicates.size();
    for (int q = 0; q < predicates.size(); q++) {
      Predicate p = predicates.get(q);
      w[1 + q] = p.slot();
      w[1 + MAX_PREDICATES + q] = p.low();
      w[1 + 2 * MAX_PREDICATES + q] = p.high();
    }
    int base = 1 + 3 * MAX_PREDICATES;
    w[base] = sums.size();
    for (int i = 0; i < sums.size(); i++) {
      Sum s = sums.get(i);
      w[base + 1 + i] = s.left();
      w[base + 1 + MAX_SUMS + i] = predicateOf(s.left());
      w[base + 1 + 2 * MAX_SUMS + i] = s.right();
      w[base + 1 + 3 * MAX_SUMS + i] = s.right() < 0 ? -1 : predicateOf(s.right());
      w[base + 1 + 4 * MAX_SUMS + i] = i;
      w[base + 1 + 5 * MAX_SUMS + i] = s.call();
    }
    w[w.length - 1] = wideMask;
    return w;
  }

  /** The predicate that loads column slot {@code slot}, or -1. */
  private int predicateOf(int slot) {
    for (int q = 0; q < predicates.size(); q++) {
      if (predicates.get(q).slot() == slot) {
        return q;
      }
    }
    return -1;
  }

  @Override public String toString() {
    return "SelectionAggregate" + predicates + sums;
  }
}
