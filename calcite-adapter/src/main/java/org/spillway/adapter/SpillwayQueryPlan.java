package org.spillway.adapter;

import org.spillway.gpu.plan.OperatorReports;
import org.spillway.gpu.plan.PlanNode;
import org.spillway.gpu.plan.PlannedOperator;
import org.spillway.gpu.plan.QueryResult;
import org.spillway.gpu.plan.RunContext;

import org.apache.calcite.DataContext;
import org.apache.calcite.linq4j.AbstractEnumerable;
import org.apache.calcite.linq4j.Enumerable;
import org.apache.calcite.linq4j.Enumerator;
import org.apache.arrow.vector.FieldVector;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

/**
 * A Spillway subtree ready to run: the root of its runtime plan (pipelines over scans, joins, pipelines over
 * joins), what its nodes report as, and how to turn the root's output vectors into Calcite's Java values. The
 * generated code reaches it through a stash; it is the one place where Spillway hands rows to Calcite.
 */
public final class SpillwayQueryPlan {
  private final PlanNode root;
  private final List<SpillwayField> output;
  /** What the runtime nodes report as, by node; complete once built, then only read. */
  private final Map<PlanNode, PlannedOperator> planned;

  /** A plan whose nodes report as nothing but their class (tests that build runtime nodes by hand). */
  SpillwayQueryPlan(PlanNode root, List<SpillwayField> output) {
    this(root, output, Map.of());
  }

  SpillwayQueryPlan(PlanNode root, List<SpillwayField> output, Map<PlanNode, PlannedOperator> planned) {
    this.root = root;
    this.output = List.copyOf(output);
    this.planned = planned;
  }

  /**
   * The rows of the subtree, computed when first enumerated and kept for later enumerations of the same
   * execution (a nested-loop join enumerates its inner input once per outer row); rows are {@code Object[]},
   * or the bare value when {@code scalar} (one column). A set cancel flag stops the run between morsels and
   * operators. The nodes report into the collector of an EXPLAIN ANALYZE that runs the query, if one does.
   */
  public Enumerable<Object> execute(DataContext dataContext, boolean scalar) {
    AtomicBoolean cancel = DataContext.Variable.CANCEL_FLAG.get(dataContext);
    BooleanSupplier cancelled = () -> cancel != null && cancel.get();
    OperatorReports reports = dataContext.get(SpillwayExplainAnalyze.REPORTS) instanceof OperatorReports analyzing
        ? analyzing : new OperatorReports();
    return new PlanRows(cancelled, reports, scalar);
  }

  /**
   * The rows of one execution, which are also its columns: Calcite enumerates them, a client that takes
   * columns ({@link SpillwayColumnarCapture}) copies the same result's batches.
   */
  private final class PlanRows extends AbstractEnumerable<Object> implements SpillwayColumnarResult {
    private final BooleanSupplier cancelled;
    private final OperatorReports reports;
    private final boolean scalar;
    private QueryResult result;
    private List<List<String>> dictionaries;

    PlanRows(BooleanSupplier cancelled, OperatorReports reports, boolean scalar) {
      this.cancelled = cancelled;
      this.reports = reports;
      this.scalar = scalar;
    }

    private synchronized QueryResult result() {
      if (result == null) {
        result = QueryResult.run(root, new RunContext(Runtime.getRuntime().availableProcessors(), cancelled,
            planned, reports));
        dictionaries = dictionaries();
      }
      return result;
    }

    @Override public Enumerator<Object> enumerator() {
      QueryResult rows = result();
      return new RowEnumerator(rows.cursor(dictionaries), scalar, cancelled);
    }

    @Override public int chunkCount() {
      return result().batchCount();
    }

    @Override public int chunkRows(int chunk) {
      return result().batchRows(chunk);
    }

    @Override public int columnCount() {
      return output.size();
    }

    @Override public Optional<ColumnCopier> copier(int column, FieldVector target) {
      QueryResult rows = result();
      return rows.arrowCopier(column, dictionaries.get(column), target).map(copier -> copier::copy);
    }

    @Override public boolean cancelled() {
      return cancelled.getAsBoolean();
    }
  }

  private List<List<String>> dictionaries() {
    List<List<String>> out = new ArrayList<>();
    for (SpillwayField field : output) {
      out.add(field.dictionary() == null ? null : field.dictionary().get());
    }
    return out;
  }

  /** Walks the result row by row, converting values only for the row asked for. */
  private static final class RowEnumerator implements Enumerator<Object> {
    private final QueryResult.Cursor rows;
    private final boolean scalar;
    private final BooleanSupplier cancelled;
    private Object current;

    RowEnumerator(QueryResult.Cursor rows, boolean scalar, BooleanSupplier cancelled) {
      this.rows = rows;
      this.cancelled = cancelled;
      this.scalar = scalar;
    }

    @Override public Object current() {
      return current;
    }

    @Override public boolean moveNext() {
      // Every row: Calcite's operators above (a nested loop join enumerating this input once per outer row, say)
      // do not look at the cancel flag themselves, so their inputs must.
      if (cancelled.getAsBoolean()) {
        throw new CancellationException("query cancelled while reading the rows of a Spillway plan");
      }
      if (!rows.next()) {
        return false;
      }
      if (scalar) {
        current = rows.value(0);
      } else {
        Object[] values = new Object[rows.columns()];
        for (int c = 0; c < values.length; c++) {
          values[c] = rows.value(c);
        }
        current = values;
      }
      return true;
    }

    @Override public void reset() {
      rows.reset();
    }

    @Override public void close() {
      // results are plain Java arrays
    }
  }
}
