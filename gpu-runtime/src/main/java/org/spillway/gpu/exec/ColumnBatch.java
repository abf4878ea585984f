package org.spillway.gpu.exec;

/** Rows of a pipeline's result: one vector per output column, all of {@code rows} rows. */
public record ColumnBatch(ColumnVector[] columns, int rows) {
}
