package org.spillway.gpu.index;

import org.apache.arrow.memory.BufferAllocator;

/** The four kinds of index, by the names {@code CREATE INDEX ... USING} gives them. */
public enum IndexKind {
  BINARY_SEARCH,
  BTREE,
  HARMONIA,
  RADIXSPLINE;

  /**
   * Builds an index of this kind over {@code column} on {@code threads} threads, its structure allocated from
   * {@code allocator}; throws {@link UnsortedKeysException} when the keys are not sorted and unique.
   */
  public SortedKeyIndex build(SortedKeyColumn column, BufferAllocator allocator, int threads) {
    return switch (this) {
      case BINARY_SEARCH -> BinarySearchIndex.build(column, threads);
      case BTREE -> BPlusTree.build(column, allocator, threads);
      case HARMONIA -> Harmonia.build(column, allocator, threads);
      case RADIXSPLINE -> RadixSpline.build(column, allocator, threads);
    };
  }
}
