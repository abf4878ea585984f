package org.spillway.storage;

import java.util.Arrays;
import java.util.List;

/**
 * The dictionaries a writer's commit would choose if the table ended with the batches merged so far, so that a
 * batch's final file can be written as soon as the batch is appended, by the thread that decoded it, instead of at the
 * commit after the last batch. The commit keeps each such file whose guess equals its own choice and writes the others
 * again ({@link TableWriter}).
 *
 * <p>A batch is guessed for only when merging its statistics changed nothing of the choice, or when it is the first
 * batch merged (whose own values are then the guess; one file at most is written twice for it): a batch that brings
 * a value new to a dictionary (or makes a column one) gets none. So a dictionary that keeps growing costs no files
 * written twice; one new value late in the table costs a rewrite of the files guessed before it. Not thread-safe: its
 * writer calls it under the lock of its statistics.
 */
final class DictionaryGuess {
  private final TableSchema schema;
  /**
   * Per column what the choice depends on after the last merge: the number of distinct values of a column that
   * would be encoded, -1 for one stored plain. Distinct values only grow, so an equal number is the same values.
   */
  private long[] signature;
  /** The choice of {@link #signature}, made when first asked for. */
  private DictionaryChoice choice;

  DictionaryGuess(TableSchema schema) {
    this.schema = schema;
  }

  /**
   * After a batch's statistics were merged into {@code statistics}, which now hold {@code rowCount} rows: the choice
   * to write that batch's file with (for the first batch merged, the one its own values make), or null where the merge
   * changed it.
   */
  DictionaryChoice afterMerge(List<ColumnStatisticsCollector> statistics, long rowCount) {
    long[] now = new long[statistics.size()];
    for (int col = 0; col < now.length; col++) {
      int distinct = statistics.get(col).exactDistinctCount();
      now[col] = distinct >= 0 && DictionaryChoice.encodes(distinct, rowCount) ? distinct : -1;
    }
    if (signature != null && !Arrays.equals(now, signature)) {
      signature = now;
      choice = null;
      return null;
    }
    signature = now;
    if (choice == null) {
      choice = DictionaryChoice.of(schema, statistics, rowCount);
    }
    return choice;
  }
}
