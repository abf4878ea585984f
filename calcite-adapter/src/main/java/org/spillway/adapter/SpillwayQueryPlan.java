package org.spillway.adapter;

import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.calcite.DataContext;
import org.apache.calcite.linq4j.AbstractEnumerable;
import org.apache.calcite.linq4j.Enumerable;
import org.apache.calcite.linq4j.Enumerator;
import org.spillway.gpu.exec.ColumnBatch;
import org.spillway.gpu.exec.ColumnVector;
import org.spillway.gpu.GpuRuntime;
import org.spillway.gpu.exec.GpuColumnarPipeline;
import org.spillway.gpu.exec.SourceBatch;
import org.spillway.storage.StoredTable;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

/**
 * A Spillway subtree ready to run: the scanned table and columns, the fused pipeline above them and how to
 * turn its output vectors into Calcite's Java values. The generated code reaches it through a stash.
 */
public final class SpillwayQueryPlan {
  /** System property: when true, each pipeline run logs its backend and time to stderr (for benchmarks). */
  static final String TRACE_PROPERTY = "spillway.trace";

  private final SpillwayTable table;
  private final int[] fields;
  private final GpuColumnarPipeline pipeline;
  private final SpillwayBackend backend;
  private final List<SpillwayField> output;

  SpillwayQueryPlan(SpillwayTable table, int[] fields, GpuColumnarPipeline pipeline, SpillwayBackend backend,
      List<SpillwayField> output) {
    this.table = table;
    this.fields = fields.clone();
    this.pipeline = pipeline;
    this.backend = backend;
    this.output = List.copyOf(output);
  }

  /** Runs the pipeline on the backend chosen at planning time; {@link #TRACE_PROPERTY} logs how long it took. */
  private List<ColumnBatch> run(AtomicBoolean cancel) {
    int threads = Runtime.getRuntime().availableProcessors();
    BooleanSupplier cancelled = () -> cancel != null && cancel.get();
    List<SourceBatch> sources = sources();
    long start = System.nanoTime();
    if (backend != null && backend.gpu()) {
      List<ColumnBatch> out = pipeline.run(GpuRuntime.requireDevice(), backend.method(), sources, threads, cancelled);
      table.deviceUsage().record(pipeline.lastFallback() == null);
      if (Boolean.getBoolean(TRACE_PROPERTY)) {
        traceGpu(System.nanoTime() - start);
      }
      return out;
    }
    List<ColumnBatch> out = pipeline.cpuPipeline().run(sources, threads, cancelled);
    table.deviceUsage().record(false);
    if (Boolean.getBoolean(TRACE_PROPERTY)) {
      System.err.printf("[spillway] cpu pipeline (%d threads): %.1f ms%n", threads, (System.nanoTime() - start) / 1e6);
    }
    return out;
  }

  private void traceGpu(long nanos) {
    GpuColumnarPipeline.RunStats stats = pipeline.lastRun();
    String detail = pipeline.lastFallback() != null ? ", ran on the CPU: " + pipeline.lastFallback()
        : String.format(", %.3f GB streamed in %.1f ms (%.1f GB/s)", stats.bytes() / 1e9, stats.nanos() / 1e6,
            stats.gigabytesPerSecond());
    System.err.printf("[spillway] gpu pipeline (%s): %.1f ms%s%n", backend.transfer(), nanos / 1e6, detail);
  }

  /**
   * The rows of the subtree, computed when first enumerated; rows are {@code Object[]}, or the bare value
   * when {@code scalar} (one column).
   */
  public Enumerable<Object> execute(DataContext root, boolean scalar) {
    AtomicBoolean cancel = DataContext.Variable.CANCEL_FLAG.get(root);
    return new AbstractEnumerable<>() {
      @Override public Enumerator<Object> enumerator() {
        List<ColumnBatch> batches = run(cancel);
        return new RowEnumerator(batches, dictionaries(), scalar);
      }
    };
  }

  private List<SourceBatch> sources() {
    StoredTable stored = table.stored();
    List<SourceBatch> sources = new ArrayList<>();
    for (VectorSchemaRoot batch : stored.batches()) {
      List<FieldVector> columns = new ArrayList<>();
      for (int field : fields) {
        columns.add(batch.getVector(field));
      }
      sources.add(new SourceBatch(columns, batch.getRowCount()));
    }
    return sources;
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
      case TEXT -> v.objects[row];
    };
  }

  /** Walks the result batches row by row, converting values only for the row asked for. */
  private static final class RowEnumerator implements Enumerator<Object> {
    private final List<ColumnBatch> batches;
    private final List<List<String>> dictionaries;
    private final boolean scalar;
    private int batch;
    private int row = -1;
    private Object current;

    RowEnumerator(List<ColumnBatch> batches, List<List<String>> dictionaries, boolean scalar) {
      this.batches = batches;
      this.dictionaries = dictionaries;
      this.scalar = scalar;
    }

    @Override public Object current() {
      return current;
    }

    @Override public boolean moveNext() {
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
