package org.spillway.gpu.index;

/**
 * Binary search over the sorted column itself: no structure at all, about log2(rows) probes of the column per
 * lookup. The baseline the other indexes must beat, and the choice when no memory may go to an index.
 */
public final class BinarySearchIndex implements SortedKeyIndex {
  private final SortedKeyColumn column;
  private final long buildNanos;

  private BinarySearchIndex(SortedKeyColumn column, long buildNanos) {
    this.column = column;
    this.buildNanos = buildNanos;
  }

  /** Checks the column's order on {@code threads} threads; there is nothing else to build. */
  public static BinarySearchIndex build(SortedKeyColumn column, int threads) {
    long start = System.nanoTime();
    column.requireSortedUnique(threads);
    return new BinarySearchIndex(column, System.nanoTime() - start);
  }

  @Override
  public long lookup(long key) {
    return column.find(0, column.rows(), key);
  }

  @Override
  public IndexKind kind() {
    return IndexKind.BINARY_SEARCH;
  }

  @Override
  public SortedKeyColumn column() {
    return column;
  }

  @Override
  public long sizeBytes() {
    return 0;
  }

  @Override
  public long buildNanos() {
    return buildNanos;
  }

  @Override
  public void close() {
  }
}
