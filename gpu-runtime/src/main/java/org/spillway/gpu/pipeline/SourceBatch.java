package org.spillway.gpu.pipeline;

import java.util.List;
import org.apache.arrow.vector.FieldVector;

/** One Arrow batch a pipeline reads: the vectors of its input columns, in pipeline input order. */
public record SourceBatch(List<FieldVector> columns, int rows) {
  public SourceBatch {
    columns = List.copyOf(columns);
  }
}
