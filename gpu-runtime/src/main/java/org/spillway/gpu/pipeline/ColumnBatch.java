package org.spillway.gpu.pipeline;

import org.spillway.gpu.vector.ColumnVector;

/** Rows of a pipeline's result: one vector per output column, all of {@code rows} rows. */
public record ColumnBatch(ColumnVector[] columns, int rows) {
}
