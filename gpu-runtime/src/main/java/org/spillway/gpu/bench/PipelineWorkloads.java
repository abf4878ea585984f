package org.spillway.gpu.bench;

import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.spillway.gpu.expr.AggCall;
import org.spillway.gpu.expr.Expr;
import org.spillway.gpu.vector.ExprType;
import org.spillway.gpu.pipeline.PipelineStage;
import org.spillway.gpu.pipeline.SourceBatch;

/**
 * Random lineitem-like columns in Arrow batches (NOT NULL, as TPC-H declares them) and TPC-H's Q6 and Q1 as
 * columnar pipelines over them, for the GPU pipeline benchmark and tests. Distributions follow dbgen and
 * Pump Up the Volume's Q6 generator: order dates uniform over 1992-01-01 .. 1998-08-02, ship date 1 to 121
 * days later, quantity 1..50, discount 0.00..0.10, tax 0.00..0.08, price = quantity times 900.00..2000.00.
 */
public final class PipelineWorkloads {
  public static final ExprType DEC2 = ExprType.decimal(2);
  /** Rows per Arrow batch, as the TPC-H generator and the CSV importer write them. */
  public static final int BATCH_ROWS = 1 << 17;
  /** Input columns: l_shipdate, l_quantity, l_extendedprice, l_discount, l_tax, l_returnflag, l_linestatus. */
  public static final List<ExprType> LINEITEM_TYPES = List.of(ExprType.DATE, DEC2, DEC2, DEC2, DEC2,
      ExprType.STRING, ExprType.STRING);
  private static final long START = LocalDate.of(1992, 1, 1).toEpochDay();
  private static final long STATUS_CUTOFF = LocalDate.of(1995, 6, 17).toEpochDay();

  private PipelineWorkloads() {}

  /** Days since 1970-01-01. */
  public static long day(int year, int month, int dayOfMonth) {
    return LocalDate.of(year, month, dayOfMonth).toEpochDay();
  }

  /**
   * Q6: SUM(l_extendedprice * l_discount) WHERE l_shipdate >= from AND l_shipdate < to AND l_discount
   * BETWEEN discountLow AND discountHigh AND l_quantity < quantityBelow (decimals in hundredths).
   */
  public static List<PipelineStage> q6(long from, long to, long discountLow, long discountHigh, long quantityBelow) {
    Expr ship = new Expr.Column(0, ExprType.DATE);
    Expr quantity = new Expr.Column(1, DEC2);
    Expr price = new Expr.Column(2, DEC2);
    Expr discount = new Expr.Column(3, DEC2);
    Expr condition = new Expr.Logical(true, List.of(
        new Expr.Compare(Expr.CompareOp.GE, ship, new Expr.Literal(from, ExprType.DATE)),
        new Expr.Compare(Expr.CompareOp.LT, ship, new Expr.Literal(to, ExprType.DATE)),
        new Expr.InRanges(discount, new long[] {discountLow}, new long[] {discountHigh}, null),
        new Expr.Compare(Expr.CompareOp.LT, quantity, new Expr.Literal(quantityBelow, DEC2))));
    ExprType dec4 = ExprType.decimal(4);
    return List.of(new PipelineStage.Filter(condition),
        new PipelineStage.Project(List.of(new Expr.Arith(Expr.ArithOp.TIMES, price, discount, dec4))),
        new PipelineStage.Aggregate(new int[0], List.of(new AggCall(AggCall.Kind.SUM, 0, dec4))));
  }

  /**
   * Q6's filter returning rows instead of a sum: l_extendedprice and l_discount of the rows the filter keeps
   * (a pipeline without an aggregation, as the side of a join or a query returning rows runs it).
   */
  public static List<PipelineStage> q6Rows(long from, long to, long discountLow, long discountHigh,
      long quantityBelow) {
    PipelineStage filter = q6(from, to, discountLow, discountHigh, quantityBelow).get(0);
    return List.of(filter, new PipelineStage.Project(List.of(new Expr.Column(2, DEC2), new Expr.Column(3, DEC2))));
  }

  /** {@link #q6Rows} with Q6's validation parameters (1.9% of the rows). */
  public static List<PipelineStage> q6Rows() {
    return q6Rows(day(1994, 1, 1), day(1995, 1, 1), 5, 7, 2400);
  }

  /** TPC-H Q6 with its validation parameters: 1994, discount 0.06 +- 0.01, quantity below 24. */
  public static List<PipelineStage> q6() {
    return q6(day(1994, 1, 1), day(1995, 1, 1), 5, 7, 2400);
  }

  /**
   * Q1: per l_returnflag, l_linestatus of rows shipped by {@code shipdateMax}: SUM of quantity, price,
   * price * (1 - discount), price * (1 - discount) * (1 + tax), discount, and COUNT(*) (AVGs are SUM / COUNT
   * above the aggregation).
   */
  public static List<PipelineStage> q1(long shipdateMax) {
    Expr price = new Expr.Column(2, DEC2);
    Expr one = new Expr.Literal(100L, DEC2);
    Expr discounted = new Expr.Arith(Expr.ArithOp.TIMES, price,
        new Expr.Arith(Expr.ArithOp.MINUS, one, new Expr.Column(3, DEC2), DEC2), ExprType.decimal(4));
    Expr charge = new Expr.Arith(Expr.ArithOp.TIMES, discounted,
        new Expr.Arith(Expr.ArithOp.PLUS, one, new Expr.Column(4, DEC2), DEC2), ExprType.decimal(6));
    return List.of(
        new PipelineStage.Filter(new Expr.Compare(Expr.CompareOp.LE, new Expr.Column(0, ExprType.DATE),
            new Expr.Literal(shipdateMax, ExprType.DATE))),
        new PipelineStage.Project(List.of(new Expr.Column(5, ExprType.STRING), new Expr.Column(6, ExprType.STRING),
            new Expr.Column(1, DEC2), price, discounted, charge, new Expr.Column(3, DEC2))),
        new PipelineStage.Aggregate(new int[] {0, 1}, List.of(new AggCall(AggCall.Kind.SUM, 2, DEC2),
            new AggCall(AggCall.Kind.SUM, 3, DEC2), new AggCall(AggCall.Kind.SUM, 4, ExprType.decimal(4)),
            new AggCall(AggCall.Kind.SUM, 5, ExprType.decimal(6)), new AggCall(AggCall.Kind.SUM, 6, DEC2),
            new AggCall(AggCall.Kind.COUNT, -1, ExprType.INT64))));
  }

  /** TPC-H Q1 with its validation parameter (DELTA 90: 1998-09-02). */
  public static List<PipelineStage> q1() {
    return q1(day(1998, 9, 2));
  }

  /**
   * {@code rows} random lineitem rows in batches of {@link #BATCH_ROWS} from {@code allocator} (whose memory
   * kind the transfer method needs); the vectors are added to {@code owned}, which the caller closes.
   */
  public static List<SourceBatch> lineitem(BufferAllocator allocator, long rows, long seed, List<FieldVector> owned) {
    int batches = (int) ((rows + BATCH_ROWS - 1) / BATCH_ROWS);
    List<List<FieldVector>> columns = new ArrayList<>();
    for (int b = 0; b < batches; b++) {
      int n = (int) Math.min(BATCH_ROWS, rows - (long) b * BATCH_ROWS);
      List<FieldVector> batch = List.of(
          new DateDayVector("l_shipdate", FieldType.notNullable(new ArrowType.Date(DateUnit.DAY)), allocator),
          bigint("l_quantity", allocator), bigint("l_extendedprice", allocator), bigint("l_discount", allocator),
          bigint("l_tax", allocator), integer("l_returnflag", allocator), integer("l_linestatus", allocator));
      owned.addAll(batch);
      for (FieldVector v : batch) {
        v.setInitialCapacity(n);
        v.allocateNew();
      }
      columns.add(batch);
    }
    IntStream.range(0, batches).parallel().forEach(b -> fill(columns.get(b),
        (int) Math.min(BATCH_ROWS, rows - (long) b * BATCH_ROWS), new SplittableRandom(seed * 0x9E3779B97F4A7C15L + b)));
    List<SourceBatch> out = new ArrayList<>();
    for (int b = 0; b < batches; b++) {
      out.add(new SourceBatch(columns.get(b), columns.get(b).get(0).getValueCount()));
    }
    return out;
  }

  private static BigIntVector bigint(String name, BufferAllocator allocator) {
    return new BigIntVector(name, FieldType.notNullable(new ArrowType.Int(64, true)), allocator);
  }

  private static IntVector integer(String name, BufferAllocator allocator) {
    return new IntVector(name, FieldType.notNullable(new ArrowType.Int(32, true)), allocator);
  }

  private static void fill(List<FieldVector> v, int n, SplittableRandom random) {
    DateDayVector ship = (DateDayVector) v.get(0);
    BigIntVector quantity = (BigIntVector) v.get(1);
    BigIntVector price = (BigIntVector) v.get(2);
    BigIntVector discount = (BigIntVector) v.get(3);
    BigIntVector tax = (BigIntVector) v.get(4);
    IntVector flag = (IntVector) v.get(5);
    IntVector status = (IntVector) v.get(6);
    for (int i = 0; i < n; i++) {
      long shipped = START + random.nextInt(2406) + 1 + random.nextInt(121);
      long qty = 1 + random.nextInt(50);
      ship.set(i, (int) shipped);
      quantity.set(i, qty * 100);
      price.set(i, qty * (90_000 + random.nextInt(110_001)));
      discount.set(i, random.nextInt(11));
      tax.set(i, random.nextInt(9));
      flag.set(i, shipped <= STATUS_CUTOFF ? random.nextInt(2) : 2);
      status.set(i, shipped > STATUS_CUTOFF ? 0 : 1);
    }
    v.forEach(x -> x.setValueCount(n));
  }
}
