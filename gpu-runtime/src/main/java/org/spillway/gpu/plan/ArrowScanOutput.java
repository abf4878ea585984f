package org.spillway.gpu.plan;

import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.spillway.gpu.pipeline.ArrowColumnGather;
import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;

import java.util.ArrayList;
import java.util.List;

/**
 * Columns of a bare scan, read straight from the table's Arrow batches (row ids run across the batches). The batches
 * are looked up once, when the scan runs, not on every read.
 */
public final class ArrowScanOutput implements NodeOutput {
  private final List<VectorSchemaRoot> batches;
  private final int rows;
  private final int[] fields;
  private final List<ExprType> types;
  private final ArrowColumnGather[] readers;

  public ArrowScanOutput(ScanTable table, int[] fields, List<ExprType> types) {
    this.batches = table.batches();
    this.rows = (int) table.rowCount();
    this.fields = fields.clone();
    this.types = List.copyOf(types);
    this.readers = new ArrowColumnGather[fields.length];
  }

  @Override public int rows() {
    return rows;
  }

  @Override public List<ExprType> types() {
    return types;
  }

  /** The table's vectors of output column {@code c}, one per batch. */
  public List<FieldVector> vectors(int c) {
    List<FieldVector> vectors = new ArrayList<>();
    for (VectorSchemaRoot batch : batches) {
      vectors.add(batch.getVector(fields[c]));
    }
    return vectors;
  }

  private synchronized ArrowColumnGather reader(int c) {
    if (readers[c] == null) {
      readers[c] = new ArrowColumnGather(vectors(c), types.get(c));
    }
    return readers[c];
  }

  @Override public ColumnVector column(int c) {
    return reader(c).all();
  }

  @Override public LongWriter longWriter(int c) {
    ArrowColumnGather reader = reader(c);
    return reader.writesLongs() ? reader::writeLongs : null;
  }

  @Override public List<HeldValues> heldValues(int c) {
    ArrowColumnGather reader = reader(c);
    return reader.writesLongs() ? reader.heldValues() : null;
  }

  @Override public ColumnVector gather(int c, int[] ids, int count) {
    return reader(c).gather(ids, count);
  }
}
