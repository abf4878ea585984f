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
  public void lookup(long[] keys, int count, long[] rows) {
    LookupGroup group = new LookupGroup();
    for (int first = 0; first < count; first += LookupGroup.SIZE) {
      int n = Math.min(LookupGroup.SIZE, count - first);
      for (int g = 0; g < n; g++) {
        group.from[g] = 0;
        group.to[g] = column.rows();
      }
      group.findInColumn(column, keys, first, n, rows);
    }
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
