package org.spillway.adapter;

import org.spillway.gpu.plan.PlanNode;
import org.spillway.gpu.plan.RunContext;

import org.apache.calcite.DataContext;
import org.apache.calcite.linq4j.AbstractEnumerable;
import org.apache.calcite.linq4j.Enumerable;
import org.apache.calcite.linq4j.Enumerator;
import org.spillway.gpu.device.SpillwayResourceException;
import org.spillway.gpu.pipeline.ColumnBatch;
import org.spillway.gpu.vector.ColumnVector;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

/**
 * A Spillway subtree ready to run: the root of its runtime plan (pipelines over scans, joins, pipelines over
 * joins) and how to turn the root's output vectors into Calcite's Java values. The generated code reaches it
 * through a stash; it is the one place where Spillway hands rows to Calcite.
 */
public final class SpillwayQueryPlan {
  private final PlanNode root;
  private final List<SpillwayField> output;

  SpillwayQueryPlan(PlanNode root, List<SpillwayField> output) {
    this.root = root;
    this.output = List.copyOf(output);
  }

  /**
   * The rows of the subtree, computed when first enumerated and kept for later enumerations of the same
   * execution (a nested-loop join enumerates its inner input once per outer row); rows are {@code Object[]},
   * or the bare value when {@code scalar} (one column). A set cancel flag stops the run between morsels and
   * operators.
   */
  public Enumerable<Object> execute(DataContext dataContext, boolean scalar) {
    AtomicBoolean cancel = DataContext.Variable.CANCEL_FLAG.get(dataContext);
    BooleanSupplier cancelled = () -> cancel != null && cancel.get();
    return new AbstractEnumerable<>() {
      private List<ColumnBatch> batches;
      private List<List<String>> dictionaries;

      @Override public synchronized Enumerator<Object> enumerator() {
        if (batches == null) {
          RunContext context = new RunContext(Runtime.getRuntime().availableProcessors(), cancelled);
          try {
            batches = root.run(context).batches();
          } catch (OutOfMemoryError e) {
            // The last resort behind MemoryGuard: this query fails, the shell or server that ran it goes on.
            throw SpillwayResourceException.of(e, "the query");
          }
          dictionaries = dictionaries();
        }
        return new RowEnumerator(batches, dictionaries, scalar, cancelled);
      }
    };
  }

  private List<List<String>> dictionaries() {
    List<List<String>> out = new ArrayList<>();
    for (SpillwayField field : output) {
      out.add(field.dictionary() == null ? null : field.dictionary().get());
    }
    return out;
  }

  /** The Calcite value of one row of an output vector. */
  static Object value(ColumnVector v, int row, List<String> dictionary) {
    if (v.isNull(row)) {
      return null;
    }
    return switch (v.type.kind()) {
      case INT32, DATE -> (int) v.longs[row];
      case INT64 -> v.longs[row];
      case DECIMAL -> BigDecimal.valueOf(v.longs[row], v.type.scale());
      case FLOAT64 -> v.doubles[row];
      case BOOLEAN -> v.longs[row] != 0;
      case STRING -> dictionary.get((int) v.longs[row]);
      case TEXT, BIG_DECIMAL -> v.objects[row];
    };
  }

  /** Walks the result batches row by row, converting values only for the row asked for. */
  private static final class RowEnumerator implements Enumerator<Object> {
    private final List<ColumnBatch> batches;
    private final List<List<String>> dictionaries;
    private final boolean scalar;
    private final BooleanSupplier cancelled;
    private int batch;
    private int row = -1;
    private Object current;

    RowEnumerator(List<ColumnBatch> batches, List<List<String>> dictionaries, boolean scalar,
        BooleanSupplier cancelled) {
      this.batches = batches;
      this.cancelled = cancelled;
      this.dictionaries = dictionaries;
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
      row++;
      while (batch < batches.size() && row >= batches.get(batch).rows()) {
        batch++;
        row = 0;
      }
      if (batch >= batches.size()) {
        return false;
      }
      ColumnVector[] columns = batches.get(batch).columns();
      if (scalar) {
        current = value(columns[0], row, dictionaries.get(0));
      } else {
        Object[] values = new Object[columns.length];
        for (int c = 0; c < columns.length; c++) {
          values[c] = value(columns[c], row, dictionaries.get(c));
        }
        current = values;
      }
      return true;
    }

    @Override public void reset() {
      batch = 0;
      row = -1;
    }

    @Override public void close() {
      // results are plain Java arrays
    }
  }
}
