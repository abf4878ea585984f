package org.spillway.adapter;

import java.nio.charset.StandardCharsets;
import org.spillway.gpu.vector.ExprType;
import org.spillway.storage.ColumnStatistics;
import org.spillway.storage.StoredTable;

/**
 * Bytes per value of a plain-text column for the cost model: its int32 offset and its UTF-8 bytes, which a GPU
 * pipeline's LIKE reads over the link. The statistics keep no byte count, but they keep the smallest and largest
 * value, whose lengths are two draws from the column's lengths (the order of text says little about its length:
 * TPC-H's comments, 19 to 78 characters of random words, average near their mean; a fixed-width code, exactly);
 * without them the type's rough average serves.
 */
final class SpillwayTextWidths {
  /** Bytes of a value's entry in the offsets buffer. */
  private static final int OFFSET_BYTES = 4;

  private SpillwayTextWidths() {}

  /** Bytes per value of plain-text column {@code column} of {@code table}. */
  static int of(StoredTable table, int column) {
    ColumnStatistics statistics = column < table.statistics().columns().size()
        ? table.statistics().columns().get(column) : null;
    if (statistics == null || !(statistics.min() instanceof String min) || !(statistics.max() instanceof String max)) {
      return ExprType.TEXT.width();
    }
    int bytes = min.getBytes(StandardCharsets.UTF_8).length + max.getBytes(StandardCharsets.UTF_8).length;
    return OFFSET_BYTES + (bytes + 1) / 2;
  }
}
