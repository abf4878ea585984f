package org.spillway.gpu.pipeline.cpu;

import static org.spillway.gpu.pipeline.scheduler.MorselScheduler.MORSEL_ROWS;

import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import java.util.function.UnaryOperator;
import org.apache.arrow.vector.FieldVector;
import org.spillway.gpu.device.MemoryGuard;
import org.spillway.gpu.aggregate.HashAggregator;
import org.spillway.gpu.aggregate.PartitionedAggregation;
import org.spillway.gpu.aggregate.SortedRunAggregation;
import org.spillway.gpu.expr.AggCall;
import org.spillway.gpu.expr.Expr;
import org.spillway.gpu.expr.ExprColumns;
import org.spillway.gpu.join.hash.JoinProbe;
import org.spillway.gpu.pipeline.ColumnBatch;
import org.spillway.gpu.pipeline.Morsel;
import org.spillway.gpu.pipeline.PipelineStage;
import org.spillway.gpu.pipeline.SourceBatch;
import org.spillway.gpu.pipeline.scheduler.MorselScheduler;

/**
 * The CPU backend of a fused columnar pipeline: filter, project and aggregate stages run per morsel of
 * rows, morsels are spread over worker threads, and aggregation is partial per worker, merged at the end.
 * Stages after the first aggregation (HAVING, projections of aggregates) run once on its result.
 */
public final class ColumnarPipeline {
  /** What a value of an output column takes: its 8-byte lane (or reference) and a null flag. */
  private static final long ROW_BYTES_PER_COLUMN = Long.BYTES + 1;
  /** The fewest rows of a morsel cut smaller for a small input: below it a task's fixed costs outweigh its rows. */
  static final int MIN_MORSEL_ROWS = 1 << 13;

  private final List<ExprType> inputTypes;
  private final List<PipelineStage> stages;
  /** Input types of each stage, then the output types. */
  private final List<List<ExprType>> stageTypes = new ArrayList<>();
  /** Per stage up to the first aggregation: the columns of its output that later stages or the output read. */
  private final BitSet[] liveAfter;
  /** The input columns read ({@link #inputColumnsRead}). */
  private final BitSet liveInput;
  /** How the last run aggregated, where the stage asked for sorted runs ({@link #lastAggregation}). */
  private volatile String lastAggregation;

  public ColumnarPipeline(List<ExprType> inputTypes, List<PipelineStage> stages) {
    this(inputTypes, stages, null);
  }

  /**
   * A pipeline whose consumer reads only the output columns in {@code outputRead} (null: all): a join probe then
   * gathers no build column that nobody reads, and the output's other columns may be null.
   */
  public ColumnarPipeline(List<ExprType> inputTypes, List<PipelineStage> stages, BitSet outputRead) {
    this.inputTypes = List.copyOf(inputTypes);
    this.stages = List.copyOf(stages);
    List<ExprType> types = this.inputTypes;
    boolean aggregated = false;
    for (int s = 0; s < this.stages.size(); s++) {
      PipelineStage stage = this.stages.get(s);
      stageTypes.add(types);
      checkStage(stage, types);
      if (stage instanceof PipelineStage.HashJoinProbe h && h.probe().kind() == JoinProbe.Kind.MARK_BUILD
          && s != this.stages.size() - 1) {
        throw new IllegalArgumentException("a join probe that marks build rows outputs nothing, so it must end its "
            + "pipeline; stages follow it: " + this.stages.subList(s + 1, this.stages.size()));
      }
      if (aggregated && stage instanceof PipelineStage.HashJoinProbe) {
        throw new IllegalArgumentException("a join probe after an aggregation: the aggregation's output is the "
            + "source of a pipeline of its own");
      }
      aggregated |= stage instanceof PipelineStage.Aggregate;
      types = stage.outputTypes(types);
    }
    stageTypes.add(types);
    this.liveAfter = new BitSet[this.stages.size()];
    this.liveInput = liveness(outputRead);
  }

  /** The types of the pipeline's output columns. */
  public List<ExprType> outputTypes() {
    return stageTypes.get(stageTypes.size() - 1);
  }

  public List<PipelineStage> stages() {
    return stages;
  }

  /**
   * Runs the pipeline over the batches with up to {@code threads} workers; result batches keep the order
   * of the input rows unless an aggregation reorders them. Fails fast if {@code cancelled} turns true.
   */
  public List<ColumnBatch> run(List<SourceBatch> batches, int threads, BooleanSupplier cancelled) {
    return finish(partialOfSources(batches, threads, cancelled, true), threads, cancelled);
  }

  /** As {@link #run(List, int, BooleanSupplier)}, without the stages after the first aggregation. */
  public Partial runPartial(List<SourceBatch> batches, int threads, BooleanSupplier cancelled) {
    return partialOfSources(batches, threads, cancelled, false);
  }

  /**
   * The partial result over the batches; {@code whole}: it is the whole input's, which the stages after the
   * aggregation finish alone (no other partial merges into its groups), so a sorted-runs aggregation may apply the
   * HAVING filter that follows it morsel by morsel ({@link #havingFilter}).
   */
  private Partial partialOfSources(List<SourceBatch> batches, int threads, BooleanSupplier cancelled, boolean whole) {
    List<int[]> morsels = new ArrayList<>();  // {batch, offset, rows}
    for (int b = 0; b < batches.size(); b++) {
      SourceBatch batch = batches.get(b);
      if (batch.columns().size() != inputTypes.size()) {
        throw new IllegalArgumentException("batch " + b + " has " + batch.columns().size()
            + " columns; the pipeline reads " + inputTypes.size());
      }
    }
    int morselRows = morselRows(batches.stream().mapToLong(SourceBatch::rows).sum(), threads);
    for (int b = 0; b < batches.size(); b++) {
      addMorsels(morsels, b, batches.get(b).rows(), morselRows);
    }
    return partial(morsels, morselRows, m -> {
      int[] slice = morsels.get(m);
      SourceBatch batch = batches.get(slice[0]);
      return Morsel.ofSource(batch.columns().toArray(new FieldVector[0]), inputTypes, slice[1], slice[2]);
    }, threads, cancelled, whole);
  }

  /**
   * The input columns the pipeline reads: those its stages read up to the first aggregation and, without one,
   * those it passes to its output. {@link #runColumns} needs no others (a COUNT(*) over a join reads none).
   */
  public BitSet inputColumnsRead() {
    return (BitSet) liveInput.clone();
  }

  /**
   * Walks the stages backwards from the output (or the first aggregation) and records what each stage's output
   * must hold; returns what the input must.
   */
  private BitSet liveness(BitSet outputRead) {
    int breaker = firstAggregate();
    BitSet needed = new BitSet();
    if (breaker < 0) {
      if (outputRead == null) {
        needed.set(0, outputTypes().size());
      } else {
        needed.or(outputRead);
      }
    }
    for (int s = (breaker < 0 ? stages.size() : breaker + 1) - 1; s >= 0; s--) {
      PipelineStage stage = stages.get(s);
      liveAfter[s] = (BitSet) needed.clone();
      if (stage instanceof PipelineStage.Aggregate a) {
        needed = new BitSet();
        for (int key : a.groupKeys()) {
          needed.set(key);
        }
        for (AggCall call : a.calls()) {
          if (call.argument() >= 0) {
            needed.set(call.argument());
          }
        }
      } else if (stage instanceof PipelineStage.Project p) {
        // A bare column reference stays lazy unless read later; any other expression is evaluated.
        BitSet in = new BitSet();
        for (int i = 0; i < p.expressions().size(); i++) {
          Expr e = p.expressions().get(i);
          if (!(e instanceof Expr.Column) || needed.get(i)) {
            ExprColumns.collect(e, in);
          }
        }
        needed = in;
      } else if (stage instanceof PipelineStage.Filter f) {
        ExprColumns.collect(f.condition(), needed);
      } else if (stage instanceof PipelineStage.HashJoinProbe h) {
        needed = probeInputRead(h.probe(), needed, stageTypes.get(s).size());
      }
    }
    return needed;
  }

  /** The probe side's columns a join probe needs, given what is read of its output. */
  private static BitSet probeInputRead(JoinProbe probe, BitSet outputRead, int probeColumns) {
    BitSet joinedRead = (BitSet) outputRead.clone();
    if (!probe.kind().projectsBuild()) {
      joinedRead = new BitSet();
      for (int c = outputRead.nextSetBit(0); c >= 0; c = outputRead.nextSetBit(c + 1)) {
        joinedRead.set(probe.joinedProbe(c));
      }
    }
    for (Expr condition : probe.conditions()) {
      ExprColumns.collect(condition, joinedRead);
    }
    BitSet in = new BitSet();
    for (int c = 0; c < probeColumns; c++) {
      if (joinedRead.get(probe.joinedProbe(c))) {
        in.set(c);
      }
    }
    for (int key : probe.probeKeys()) {
      in.set(key);
    }
    return in;
  }

  /**
   * The build side's columns that the join probe of stage {@code stage} gathers: those read after it and those
   * its conditions read (its keys are read by the table's build, not here).
   */
  public BitSet buildColumnsRead(int stage) {
    JoinProbe probe = ((PipelineStage.HashJoinProbe) stages.get(stage)).probe();
    int probeColumns = stageTypes.get(stage).size();
    BitSet joinedRead = new BitSet();
    if (probe.kind().projectsBuild()) {
      joinedRead.or(liveAfter[stage]);
    }
    for (Expr condition : probe.conditions()) {
      ExprColumns.collect(condition, joinedRead);
    }
    BitSet out = new BitSet();
    for (int b = 0; b < probe.buildTypes().size(); b++) {
      if (joinedRead.get(probe.joinedBuild(b, probeColumns))) {
        out.set(b);
      }
    }
    return out;
  }

  /**
   * Runs the pipeline over columns already held in vectors (the output of a join or of another pipeline),
   * morsel by morsel as {@link #run(List, int, BooleanSupplier)} does over Arrow batches. A column the pipeline
   * does not read ({@link #inputColumnsRead}) may be null.
   */
  public List<ColumnBatch> runColumns(List<ColumnBatch> batches, int threads, BooleanSupplier cancelled) {
    List<int[]> morsels = new ArrayList<>();
    BitSet read = inputColumnsRead();
    for (int b = 0; b < batches.size(); b++) {
      ColumnBatch batch = batches.get(b);
      for (int c = 0; c < Math.max(batch.columns().length, inputTypes.size()); c++) {
        ColumnVector column = c < batch.columns().length ? batch.columns()[c] : null;
        if (column == null && c < inputTypes.size() && c < batch.columns().length && !read.get(c)) {
          continue;
        }
        if (column == null || c >= inputTypes.size() || !column.type.equals(inputTypes.get(c))
            || column.size < batch.rows()) {
          throw new IllegalArgumentException("batch " + b + " of " + batch.rows() + " rows does not fit the "
              + "pipeline's input " + inputTypes + " at column " + c + ": "
              + (column == null ? "missing" : column.type + " of " + column.size + " rows"));
        }
      }
    }
    int morselRows = morselRows(batches.stream().mapToLong(ColumnBatch::rows).sum(), threads);
    for (int b = 0; b < batches.size(); b++) {
      addMorsels(morsels, b, batches.get(b).rows(), morselRows);
    }
    return finish(partial(morsels, morselRows, m -> {
      int[] slice = morsels.get(m);
      ColumnBatch batch = batches.get(slice[0]);
      ColumnVector[] columns = new ColumnVector[batch.columns().length];
      for (int c = 0; c < columns.length; c++) {
        ColumnVector column = batch.columns()[c];
        columns[c] = column == null ? null : column.slice(slice[1], slice[2]);
      }
      return Morsel.ofColumns(columns, slice[2]);
    }, threads, cancelled, true), threads, cancelled);
  }

  private static void addMorsels(List<int[]> morsels, int batch, int rows, int morselRows) {
    for (int offset = 0; offset < rows; offset += morselRows) {
      morsels.add(new int[] {batch, offset, Math.min(morselRows, rows - offset)});
    }
  }

  /**
   * The rows of a morsel over an input of {@code rows} rows run on up to {@code threads} threads: {@link
   * MorselScheduler#MORSEL_ROWS}, or fewer where the input is too small to give every thread two morsels (a table
   * of 100 Ki rows would else run on two cores), but never below {@link #MIN_MORSEL_ROWS}; a power of two.
   */
  static int morselRows(long rows, int threads) {
    long perThread = (rows + 2L * threads - 1) / (2L * Math.max(1, threads));
    // a power of two, so that whole morsels split into whole parts ({@link #wholeMorsels})
    return (int) Math.max(MIN_MORSEL_ROWS, Math.min(MORSEL_ROWS, Long.highestOneBit(Math.max(1, perThread))));
  }

  /**
   * Runs the stages over {@code count} morsels made on the worker threads by {@code morsel}; then, for each probe
   * that preserves its build side (in stage order, as the rows of one pass through the later probes and may mark
   * their build rows), pushes its unmatched build rows through the stages after it ({@link #pushUnmatchedBuild}).
   */
  private Partial partial(List<int[]> morsels, int morselRows, IntFunction<Morsel> morsel, int threads,
      BooleanSupplier cancelled, boolean whole) {
    int count = morsels.size();
    if (sortedRuns()) {
      try {
        Partial result = push(count, morselRows, morsel, null, threads, cancelled, true,
            whole ? havingFilter() : null, null);
        lastAggregation = "sorted runs";
        return result;
      } catch (SortedRunAggregation.OutOfOrder e) {
        // the statistic that promised clustered keys was wrong: the rows run again into a hash aggregation
        lastAggregation = "hash: " + e.getMessage();
      }
    }
    return push(count, morselRows, morsel, null, threads, cancelled, false, null, wholeMorsels(morsels, morselRows));
  }

  /**
   * Per morsel: the whole morsel of {@link MorselScheduler#MORSEL_ROWS} rows it is a part of (where {@link
   * #morselRows} cut an input smaller), as consecutive numbers; null where the morsels are whole. The rows of the parts
   * of one whole morsel come out as one batch, as a whole morsel's would: a result's batches do not depend on the
   * number of threads (and the GPU's rows come in whole morsels too).
   */
  private static int[] wholeMorsels(List<int[]> morsels, int morselRows) {
    if (morselRows >= MORSEL_ROWS) {
      return null;
    }
    int[] whole = new int[morsels.size()];
    for (int m = 1; m < whole.length; m++) {
      int[] a = morsels.get(m - 1);
      int[] b = morsels.get(m);
      whole[m] = whole[m - 1] + (a[0] == b[0] && a[1] / MORSEL_ROWS == b[1] / MORSEL_ROWS ? 0 : 1);
    }
    return whole;
  }

  /**
   * The filter right after the first aggregation as a function of a part of its groups (the rows that pass, in
   * order), or null where none follows it.
   */
  private UnaryOperator<ColumnVector[]> havingFilter() {
    int next = firstAggregate() + 1;
    if (next <= 0 || next >= stages.size() || !(stages.get(next) instanceof PipelineStage.Filter filter)) {
      return null;
    }
    return columns -> {
      Morsel groups = Morsel.ofColumns(columns, columns.length == 0 ? 0 : columns[0].size);
      if (groups.rows() > 0) {
        groups.filter(filter.condition());
      }
      return groups.materialize();
    };
  }

  /**
   * Whether the first aggregation runs over sorted runs: its stage says the key arrives clustered, and no probe before
   * it outputs rows after the last morsel (the unmatched build rows of a RIGHT or FULL probe come in no key order).
   */
  private boolean sortedRuns() {
    int breaker = firstAggregate();
    if (breaker < 0 || !((PipelineStage.Aggregate) stages.get(breaker)).sortedRuns()) {
      return false;
    }
    for (int s = 0; s < breaker; s++) {
      if (stages.get(s) instanceof PipelineStage.HashJoinProbe h && h.probe().kind().preservesBuild()) {
        return false;
      }
    }
    return true;
  }

  /**
   * How the last run of this pipeline aggregated where its stage asked for sorted runs: "sorted runs", or "hash: "
   * and why the keys were not clustered after all; null before such a run.
   */
  public String lastAggregation() {
    return lastAggregation;
  }

  /**
   * What the stages up to the first aggregation left: the rows of a pipeline without an aggregation ({@code groups}
   * null), else that aggregation's groups, before the stages after it ran. Partials of disjoint parts of the input
   * combine into the pipeline's result ({@link #finish(List, int, BooleanSupplier)}). The groups of a GPU run may have
   * gone through the next aggregation too ({@code aggregations} 2: the stage right after the first is an aggregation,
   * which the device ran over the first's groups); only groups of the first merge.
   */
  public record Partial(List<ColumnBatch> rows, ColumnVector[] groups, int aggregations) {
    /** Rows, or the groups of the first aggregation. */
    public Partial(List<ColumnBatch> rows, ColumnVector[] groups) {
      this(rows, groups, 1);
    }
  }

  /**
   * The partial result over the batches that {@code claim} gives this run (asked once per morsel, from the last
   * batch to the first: the CPU's end of a scan shared with the GPU, {@link org.spillway.gpu.pipeline.ScanClaims});
   * rows come in the batches' order. Aggregates by hashing even where the stage asked for sorted runs (the claimed
   * batches are not known in advance).
   */
  public Partial runClaimed(List<SourceBatch> batches, java.util.function.IntPredicate claim, int threads,
      BooleanSupplier cancelled) {
    List<int[]> morsels = new ArrayList<>();  // {batch, offset, rows}: the last batch first, its morsels in order
    for (int b = batches.size() - 1; b >= 0; b--) {
      addMorsels(morsels, b, batches.get(b).rows(), MORSEL_ROWS);
    }
    int[] order = new int[morsels.size()];  // the morsels in the batches' order: each batch's run, the last run first
    for (int end = morsels.size(), at = 0; end > 0; ) {
      int start = end;
      while (start > 0 && morsels.get(start - 1)[0] == morsels.get(end - 1)[0]) {
        start--;
      }
      for (int k = start; k < end; k++) {
        order[at++] = k;
      }
      end = start;
    }
    return push(morsels.size(), MORSEL_ROWS, m -> {
      int[] slice = morsels.get(m);
      if (!claim.test(slice[0])) {
        return null;
      }
      SourceBatch batch = batches.get(slice[0]);
      return Morsel.ofSource(batch.columns().toArray(new FieldVector[0]), inputTypes, slice[1], slice[2]);
    }, order, threads, cancelled, false, null, null);
  }

  /**
   * The result of partials over disjoint parts of the input: their rows one after the other, or their groups merged
   * (SUM and COUNT summed, MIN and MIN, MAX and MAX) and then the stages after the aggregation.
   */
  public List<ColumnBatch> finish(List<Partial> partials, int threads, BooleanSupplier cancelled) {
    int breaker = firstAggregate();
    if (breaker < 0) {
      List<ColumnBatch> rows = new ArrayList<>();
      partials.forEach(p -> rows.addAll(p.rows()));
      return rows;
    }
    if (partials.size() == 1) {
      return finish(partials.get(0), threads, cancelled);
    }
    if (partials.stream().anyMatch(p -> p.aggregations() != 1)) {
      throw new IllegalArgumentException("only groups of the first aggregation merge");
    }
    PipelineStage.Aggregate aggregate = (PipelineStage.Aggregate) stages.get(breaker);
    List<ExprType> groupTypes = stageTypes.get(breaker + 1);
    List<PipelineStage> merging = new ArrayList<>();
    merging.add(mergeOf(aggregate, groupTypes));
    merging.addAll(stages.subList(breaker + 1, stages.size()));
    List<ColumnBatch> groups = new ArrayList<>();
    for (Partial p : partials) {
      int rows = p.groups().length == 0 ? 0 : p.groups()[0].size;
      groups.add(new ColumnBatch(p.groups(), rows));
    }
    return new ColumnarPipeline(groupTypes, merging).runColumns(groups, threads, cancelled);
  }

  /**
   * Why partial results of this pipeline cannot be merged ({@link #finish(List, int, BooleanSupplier)}), or null:
   * a probe that emits its unmatched build rows after the last morsel, or an aggregate call without a merge.
   */
  public String partialsUnsupportedReason() {
    int breaker = firstAggregate();
    int end = breaker < 0 ? stages.size() : breaker;
    for (int s = 0; s < end; s++) {
      if (stages.get(s) instanceof PipelineStage.HashJoinProbe h
          && (h.probe().kind().preservesBuild() || h.probe().kind() == JoinProbe.Kind.MARK_BUILD)) {
        return "its join probe " + h.probe().kind() + " keeps state over all probe rows";
      }
    }
    if (breaker >= 0) {
      try {
        mergeOf((PipelineStage.Aggregate) stages.get(breaker), stageTypes.get(breaker + 1));
      } catch (IllegalArgumentException e) {
        return "its aggregation has no merge: " + e.getMessage();
      }
    }
    return null;
  }

  /** The aggregation that merges the groups of {@code aggregate} (whose output types are {@code groupTypes}). */
  private static PipelineStage.Aggregate mergeOf(PipelineStage.Aggregate aggregate, List<ExprType> groupTypes) {
    int keys = aggregate.groupKeys().length;
    int[] groupKeys = new int[keys];
    for (int k = 0; k < keys; k++) {
      groupKeys[k] = k;
    }
    List<AggCall> calls = new ArrayList<>();
    for (int c = 0; c < aggregate.calls().size(); c++) {
      AggCall call = aggregate.calls().get(c);
      AggCall.Kind kind = call.kind() == AggCall.Kind.COUNT ? AggCall.Kind.SUM0 : call.kind();
      AggCall merge = new AggCall(kind, keys + c, call.resultType());
      merge.checkArgument(groupTypes.get(keys + c));
      calls.add(merge);
    }
    return new PipelineStage.Aggregate(groupKeys, calls);
  }

  /** The result of a partial over the whole input: its rows, or its groups through the stages after them. */
  public List<ColumnBatch> finish(Partial partial, int threads, BooleanSupplier cancelled) {
    return partial.groups() == null ? partial.rows()
        : finish(partial.groups(), firstAggregate() + partial.aggregations(), threads, cancelled);
  }

  /**
   * Pushes {@code count} morsels (null from {@code morsel}: none there) through the stages up to the first
   * aggregation; rows come in morsel order, or in {@code order} (null: morsel order).
   */
  private Partial push(int count, int morselRows, IntFunction<Morsel> morsel, int[] order, int threads,
      BooleanSupplier cancelled, boolean sorted, UnaryOperator<ColumnVector[]> having, int[] wholeMorsels) {
    int breaker = firstAggregate();
    int end = breaker < 0 ? stages.size() : breaker;
    List<List<ColumnBatch>> outputs = new ArrayList<>(java.util.Collections.nCopies(count, null));
    PartitionedAggregation[] partials = new PartitionedAggregation[MorselScheduler.workers(count, threads)];
    // a worker's share of the morsels' rows bounds the groups its table can make
    long workerRows = (long) ((count + partials.length - 1) / partials.length) * morselRows;
    SortedRunAggregation runs = sorted
        ? new SortedRunAggregation(stageTypes.get(breaker), (PipelineStage.Aggregate) stages.get(breaker), count)
        : null;
    AtomicLong collected = new AtomicLong();
    Sink sink = (worker, rows, out) -> {
      if (runs != null) {
        runs.add(rows);
      } else if (breaker >= 0) {
        if (partials[worker] == null) {
          partials[worker] = newPartitionedAggregation(breaker, workerRows);
        }
        partials[worker].add(rows);
      } else if (rows.rows() > 0) {
        ColumnBatch batch = new ColumnBatch(rows.materialize(), rows.rows());
        long total = collected.addAndGet(batch.rows());
        MemoryGuard.require(total * ROW_BYTES_PER_COLUMN * Math.max(1, batch.columns().length),
            () -> "the output of a pipeline (" + total + " rows so far)");
        out.add(batch);
      }
    };
    MorselScheduler.forEach(count, threads, cancelled, (worker, m) -> {
      Morsel rows = morsel.apply(m);
      List<ColumnBatch> out = new ArrayList<>(1);
      if (rows != null) {
        push(rows.numbered(m), 0, end, done -> sink.accept(worker, done, out));
      }
      outputs.set(m, out);
    });
    for (int s = 0; s < end; s++) {
      if (stages.get(s) instanceof PipelineStage.HashJoinProbe h && h.probe().kind().preservesBuild()) {
        outputs.addAll(pushUnmatchedBuild(s, h.probe(), end, partials.length, cancelled, sink));
      }
    }
    for (int w = 0; w < partials.length; w++) {
      if (breaker >= 0 && partials[w] == null) {
        partials[w] = newPartitionedAggregation(breaker, workerRows);  // a worker that got no morsel
      }
    }
    if (breaker < 0) {
      List<ColumnBatch> result = new ArrayList<>();
      if (wholeMorsels != null) {
        for (int m = 0; m < count; ) {
          int past = m + 1;
          while (past < count && wholeMorsels[past] == wholeMorsels[m]) {
            past++;
          }
          result.addAll(ColumnBatch.joined(outputs.subList(m, past), MORSEL_ROWS));
          m = past;
        }
        outputs.subList(count, outputs.size()).forEach(result::addAll);
      } else if (order == null) {
        outputs.forEach(result::addAll);
      } else {
        for (int m : order) {
          result.addAll(outputs.get(m));
        }
        for (int m = count; m < outputs.size(); m++) {
          result.addAll(outputs.get(m));
        }
      }
      return new Partial(result, null);
    }
    if (runs != null) {
      return new Partial(null, having != null ? runs.result(threads, cancelled, having)
          : runs.result(threads, cancelled));
    }
    return new Partial(null, PartitionedAggregation.merge(partials, cancelled));
  }

  /** Where a worker hands the rows that left the last per-morsel stage: its partial aggregate or its output. */
  private interface Sink {
    void accept(int worker, Morsel rows, List<ColumnBatch> out);
  }

  /**
   * The final source of a probe that preserves its build side (a RIGHT or FULL join built on its preserved side):
   * once every probe morsel was probed, the build rows no probe row matched, joined to NULL probe columns, run
   * through stages {@code (stage, end)} on up to {@code workers} workers (the partial aggregates' count).
   */
  private List<List<ColumnBatch>> pushUnmatchedBuild(int stage, JoinProbe probe, int end, int workers,
      BooleanSupplier cancelled, Sink sink) {
    int[] unmatched = probe.markedBuildRows(false);
    int count = (unmatched.length + MORSEL_ROWS - 1) / MORSEL_ROWS;
    List<List<ColumnBatch>> outputs = new ArrayList<>(java.util.Collections.nCopies(count, null));
    List<ExprType> probeTypes = stageTypes.get(stage);
    MorselScheduler.forEach(count, workers, cancelled, (worker, m) -> {
      int from = m * MORSEL_ROWS;
      int rows = Math.min(MORSEL_ROWS, unmatched.length - from);
      ColumnVector[] columns = probe.unmatchedBuildColumns(probeTypes, liveAfter[stage], unmatched, from, rows);
      List<ColumnBatch> out = new ArrayList<>(1);
      push(Morsel.ofColumns(columns, rows), stage + 1, end, joined -> sink.accept(worker, joined, out));
      outputs.set(m, out);
    });
    return outputs;
  }

  /**
   * Runs the stages from {@code first} on the result of an aggregation: a large result (more than a morsel, a second
   * aggregation's input, say) in morsels on up to {@code threads} workers as a pipeline of its own, a small one here.
   */
  public List<ColumnBatch> finish(ColumnVector[] columns, int first, int threads, BooleanSupplier cancelled) {
    int rows = columns.length == 0 ? 0 : columns[0].size;
    if (threads <= 1 || rows <= MORSEL_ROWS || first >= stages.size()) {
      return finish(columns, first);
    }
    return new ColumnarPipeline(stageTypes.get(first), stages.subList(first, stages.size()))
        .runColumns(List.of(new ColumnBatch(columns, rows)), threads, cancelled);
  }

  /** Runs the stages from {@code first} on the (small) result of an aggregation, on this thread. */
  public List<ColumnBatch> finish(ColumnVector[] columns, int first) {
    int rows = columns.length == 0 ? 0 : columns[0].size;
    Morsel morsel = Morsel.ofColumns(columns, rows);
    for (int s = first; s < stages.size(); s++) {
      if (stages.get(s) instanceof PipelineStage.Aggregate) {
        HashAggregator again = newAggregator(s);
        again.add(morsel);
        ColumnVector[] out = again.result();
        morsel = Morsel.ofColumns(out, out.length == 0 ? 0 : out[0].size);
      } else {
        push(morsel, s, s + 1, done -> { });
      }
    }
    return morsel.rows() == 0 ? List.of() : List.of(new ColumnBatch(morsel.materialize(), morsel.rows()));
  }

  /**
   * Runs stages [from, to) over the morsel and hands the result to {@code sink}: once, or (after a join probe that
   * multiplies rows) once per bounded part. A morsel left empty still passes through every projection: the stages
   * after it (an aggregation, the output) read the projection's columns, not its input's.
   */
  private void push(Morsel morsel, int from, int to, Consumer<Morsel> sink) {
    for (int s = from; s < to; s++) {
      PipelineStage stage = stages.get(s);
      if (stage instanceof PipelineStage.Filter f) {
        if (morsel.rows() > 0) {
          morsel.filter(f.condition());
        }
      } else if (stage instanceof PipelineStage.Project p) {
        morsel.project(p.expressions());
      } else if (stage instanceof PipelineStage.HashJoinProbe h) {
        int next = s + 1;
        morsel.probe(h.probe(), liveAfter[s], MORSEL_ROWS, joined -> push(joined, next, to, sink));
        return;
      } else {
        throw new IllegalStateException("stage " + s + " (" + stage + ") cannot run per morsel");
      }
    }
    sink.accept(morsel);
  }

  /** Types of the input of stage {@code stage} (of the output when it equals the stage count). */
  public List<ExprType> stageInputTypes(int stage) {
    return stageTypes.get(stage);
  }

  private HashAggregator newAggregator(int stage) {
    return new HashAggregator(stageTypes.get(stage), (PipelineStage.Aggregate) stages.get(stage));
  }

  /** A worker's aggregation of stage {@code stage}, which expects to take about {@code workerRows} rows. */
  private PartitionedAggregation newPartitionedAggregation(int stage, long workerRows) {
    List<ExprType> types = stageTypes.get(stage);
    PipelineStage.Aggregate aggregate = (PipelineStage.Aggregate) stages.get(stage);
    return new PartitionedAggregation(new HashAggregator(types, aggregate, 16, workerRows),
        groups -> new HashAggregator(types, aggregate, groups), PartitionedAggregation.FLUSH_GROUPS);
  }

  /** Index of the first aggregation stage (the pipeline breaker), or -1. */
  public int firstAggregate() {
    for (int s = 0; s < stages.size(); s++) {
      if (stages.get(s) instanceof PipelineStage.Aggregate) {
        return s;
      }
    }
    return -1;
  }

  private static void checkStage(PipelineStage stage, List<ExprType> types) {
    if (stage instanceof PipelineStage.HashJoinProbe h) {
      for (int key : h.probe().probeKeys()) {
        if (key < 0 || key >= types.size()) {
          throw new IllegalArgumentException("join key $" + key + " is not a column of " + types);
        }
      }
    }
    if (stage instanceof PipelineStage.Aggregate a) {
      for (int key : a.groupKeys()) {
        if (key < 0 || key >= types.size() || types.get(key).kind() == ExprType.Kind.BIG_DECIMAL) {
          throw new IllegalArgumentException("group key $" + key + " is not a groupable column of " + types);
        }
      }
      if (a.sortedRuns() && !PipelineStage.Aggregate.sortedRunsKey(types.get(a.groupKeys()[0]))) {
        throw new IllegalArgumentException("sorted runs of group key $" + a.groupKeys()[0] + " of "
            + types.get(a.groupKeys()[0]) + ": only integral keys compare as their words");
      }
      for (AggCall call : a.calls()) {
        if (call.argument() >= types.size()) {
          throw new IllegalArgumentException(call + " reads a column outside " + types);
        }
        if (call.argument() >= 0) {
          call.checkArgument(types.get(call.argument()));
        }
      }
    }
  }
}
