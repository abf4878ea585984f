package org.spillway.gpu.plan;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.function.Supplier;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.GpuRuntime;
import org.spillway.gpu.expr.Expr;
import org.spillway.gpu.expr.VectorEvaluator;
import org.spillway.gpu.join.JoinType;
import org.spillway.gpu.join.inlj.IndexJoinDevice;
import org.spillway.gpu.join.inlj.JoinIndex;
import org.spillway.gpu.join.inlj.TranslationSlices;
import org.spillway.gpu.join.inlj.WindowedIndexJoin;
import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;

/**
 * An equi-join through an index at run time (the windowed index nested-loop join): runs the probe side, looks its keys
 * up in the {@link TableIndex} over the indexed table's key column, and returns the output as {@link JoinedOutput}
 * over the probe's output and the indexed table's columns, read at the rows the index found. The indexed side is
 * never scanned: only the rows the lookups hit are read.
 *
 * <p>The index covers the whole table, so a filter on the indexed side is applied after the lookup: each probe row's
 * one candidate (the keys are unique) is kept only where the filter holds, then the join kind decides what the probe
 * row outputs. The join preserves only its probe side ({@link JoinKind}
 * INNER, LEFT, SEMI or ANTI); a semi- or anti-join probes with its left input, whose rows it returns.
 */
public final class IndexJoinNode implements PlanNode {
  /** The window the paper uses by default: 32 MiB of probe keys. */
  public static final long DEFAULT_WINDOW_BYTES = WindowedIndexJoin.DEFAULT_WINDOW_BYTES;
  /** The largest window sized by its index ({@link #windowBytes}). */
  public static final long MAX_SIZED_WINDOW_BYTES = WindowedIndexJoin.MAX_SIZED_WINDOW_BYTES;

  /**
   * The window of a join through an index over {@code indexedRows} keys: {@code chosenBytes} where the user chose one
   * (above 0), else sized by the index ({@link WindowedIndexJoin#windowBytesFor}).
   */
  public static long windowBytes(long chosenBytes, double indexedRows) {
    return chosenBytes > 0 ? chosenBytes : WindowedIndexJoin.windowBytesFor(indexedRows);
  }
  /** Partitions of a window: lookups of one partition read a stretch of 1/this of the index. */
  public static final int WINDOW_PARTITIONS = WindowedIndexJoin.WINDOW_PARTITIONS;

  /** The most bytes of the index one GPU lookup launch reads ({@link TranslationSlices#configuredReach}). */
  public static long translationReach() {
    return TranslationSlices.configuredReach();
  }

  /**
   * The windows the join cuts {@code probeRows} probe keys into on {@code threads} CPU threads with windows of at most
   * {@code windowBytes}: the rounds of lookups the CPU join takes ({@link WindowedIndexJoin#windowCount}).
   */
  public static long cpuWindowCount(long probeRows, long windowBytes, int threads) {
    return WindowedIndexJoin.windowCount(probeRows, windowBytes, threads);
  }

  private final PlanNode probe;
  private final int probeKey;
  private final IndexedSide indexed;
  private final JoinType joinType;
  private final boolean indexedLeft;
  private final long windowBytes;
  private final boolean onGpu;
  private final DeviceRuns usage;
  private final String label;

  /**
   * The side a join looks up: the columns {@code fields} (of {@code types}) of {@code table}, whose key column the
   * index {@code index} supplies acquired (the node releases it after the lookups), and the rows {@code filter} (over
   * the table's columns {@code filterFields} of {@code filterTypes}; null: none) holds for.
   */
  public record IndexedSide(ScanTable table, int[] fields, List<ExprType> types, Supplier<TableIndex> index,
      Expr filter, int[] filterFields, List<ExprType> filterTypes) {
    public IndexedSide {
      fields = fields.clone();
      types = List.copyOf(types);
      filterFields = filter == null ? new int[0] : filterFields.clone();
      filterTypes = filter == null ? List.of() : List.copyOf(filterTypes);
    }
  }

  /**
   * A join of {@code probe} (its key in output column {@code probeKey}) with {@code indexed}, in windows of
   * {@code windowBytes} of probe keys, on the GPU if {@code onGpu} (the CPU serves where it cannot, with the reason in
   * the report). {@code indexedLeft}: the indexed side is the join's left input (not for a semi- or anti-join), so
   * its columns come first (a SQL RIGHT join is a LEFT one that probes with its right input).
   */
  public IndexJoinNode(PlanNode probe, int probeKey, IndexedSide indexed, JoinKind kind, boolean indexedLeft,
      long windowBytes, boolean onGpu, DeviceRuns usage, String label) {
    this.joinType = kind.materializedType();
    if (indexedLeft && !projectsIndexed()) {
      throw new IllegalArgumentException("a " + kind + " join returns its left input's rows, which it probes with,"
          + " so its indexed side is the right one: " + label);
    }
    this.probe = probe;
    this.probeKey = probeKey;
    this.indexed = indexed;
    this.indexedLeft = indexedLeft;
    this.windowBytes = windowBytes;
    this.onGpu = onGpu;
    this.usage = usage;
    this.label = label;
  }

  @Override public List<ExprType> types() {
    if (!projectsIndexed()) {
      return probe.types();
    }
    List<ExprType> out = new ArrayList<>(indexedLeft ? indexed.types() : probe.types());
    out.addAll(indexedLeft ? probe.types() : indexed.types());
    return out;
  }

  @Override public NodeOutput run(RunContext context) {
    NodeOutput probeColumns = probe.run(context);
    context.checkCancelled("before join " + label);
    long start = System.nanoTime();
    ColumnVector key = probeColumns.column(probeKey);
    long[] keys = key.longs.length == key.size ? key.longs : Arrays.copyOf(key.longs, key.size);
    JoinIndex joined;
    OperatorReport.Execution[] ran = new OperatorReport.Execution[1];
    TableIndex acquired = indexed.index().get();
    try {
      JoinType lookup = indexed.filter() == null ? joinType : JoinType.LEFT_OUTER;
      joined = join(acquired, keys, key.nulls, lookup, context, ran);
    } finally {
      acquired.release();
    }
    if (indexed.filter() != null) {
      joined = filtered(joined, new ArrowScanOutput(indexed.table(), indexed.filterFields(), indexed.filterTypes()));
    }
    usage.record(ran[0].device().equals("gpu"));
    context.report(this, ran[0], joined.size(), start);
    RunContext.trace("index join %s through %s on %s: %d probe rows -> %d rows in %.1f ms", label, acquired.name(),
        ran[0].device(), keys.length, joined.size(), (System.nanoTime() - start) / 1e6);
    context.checkCancelled("after join " + label);
    int[] probeRows = joined.probeRows();
    if (!projectsIndexed()) {
      return new JoinedOutput(probeColumns, null, probeRows, null);
    }
    int[] indexedRows = rowIds(joined.buildRows());
    NodeOutput indexedColumns = new ArrowScanOutput(indexed.table(), indexed.fields(), indexed.types());
    return indexedLeft ? new JoinedOutput(indexedColumns, probeColumns, indexedRows, probeRows)
        : new JoinedOutput(probeColumns, indexedColumns, probeRows, indexedRows);
  }

  /**
   * The windowed index join on the GPU where asked for and possible, else on the CPU; {@code ran[0]} says where (and
   * why not on the GPU, for a GPU join that could not run).
   */
  private JoinIndex join(TableIndex index, long[] keys, boolean[] nulls, JoinType type, RunContext context,
      OperatorReport.Execution[] ran) {
    String notOnGpu = null;
    if (onGpu) {
      Optional<CudaDevice> device = GpuRuntime.device();
      if (device.isPresent()) {
        try {
          JoinIndex joined = WindowedIndexJoin.run(IndexJoinDevice.gpu(device.get()), keys, nulls, index.index(), type,
              windowBytes, context.cancelled());
          ran[0] = OperatorReport.Execution.gpu((long) keys.length * Long.BYTES, (long) keys.length * Long.BYTES);
          return joined;
        } catch (CancellationException e) {
          throw e;
        } catch (RuntimeException e) {
          notOnGpu = e.getMessage();  // e.g. an index outside pinned memory, or the device's memory exhausted
        }
      } else {
        notOnGpu = GpuRuntime.unavailableReason();
      }
    }
    ran[0] = notOnGpu == null ? OperatorReport.Execution.CPU
        : new OperatorReport.Execution("gpu, fell back to cpu: " + notOnGpu, 0, 0);
    return WindowedIndexJoin.run(IndexJoinDevice.cpu(context.threads()), keys, nulls, index.index(), type,
        windowBytes, context.cancelled());
  }

  /**
   * What the join kind keeps of a LEFT_OUTER lookup (every probe row with its candidate or -1) once the indexed
   * side's filter dropped the candidates it rejects.
   */
  private JoinIndex filtered(JoinIndex candidates, NodeOutput filterColumns) {
    long[] build = candidates.buildRows().clone();
    int[] matched = new int[build.length];
    int count = 0;
    for (int i = 0; i < build.length; i++) {
      matched[count] = (int) build[i];
      count += build[i] >= 0 ? 1 : 0;
    }
    int n = count;
    ColumnVector holds = VectorEvaluator.evaluate(indexed.filter(), c -> filterColumns.gather(c, matched, n), n);
    int at = 0;
    for (int i = 0; i < build.length; i++) {
      if (build[i] >= 0) {
        boolean keep = !holds.isNull(at) && holds.longs[at] != 0;
        at++;
        build[i] = keep ? build[i] : -1;
      }
    }
    int size = 0;
    for (long row : build) {
      size += keeps(row >= 0) ? 1 : 0;
    }
    int[] probeRows = new int[size];
    long[] buildRows = new long[size];
    int out = 0;
    for (int i = 0; i < build.length; i++) {
      if (keeps(build[i] >= 0)) {
        probeRows[out] = candidates.probeRows()[i];
        buildRows[out++] = joinType.existenceOnly() ? -1 : build[i];
      }
    }
    return new JoinIndex(probeRows, buildRows);
  }

  private boolean keeps(boolean matched) {
    return switch (joinType) {
      case INNER, SEMI -> matched;
      case ANTI -> !matched;
      case LEFT_OUTER -> true;
    };
  }

  /** The indexed table's rows as the int row ids {@link JoinedOutput} gathers at (-1 stays -1). */
  private static int[] rowIds(long[] rows) {
    int[] ids = new int[rows.length];
    for (int i = 0; i < rows.length; i++) {
      ids[i] = Math.toIntExact(rows[i]);
    }
    return ids;
  }

  /** Whether the output has the indexed side's columns (a semi- or anti-join returns probe rows only). */
  private boolean projectsIndexed() {
    return joinType != JoinType.SEMI && joinType != JoinType.ANTI;
  }
}
