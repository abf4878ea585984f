package org.spillway.gpu.index;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * Harmonia (Yan et al., PPoPP 2019), as Schmeißer, Lutz and Markl configure it: a B+-tree of fanout 32 split into
 * a key region and a child region, with no pointer in any node, clustered over the column (its leaves are the
 * column's stretches of 32 rows).
 *
 * <p>The key region holds 32 keys per inner node, the nodes breadth-first from the root; key {@code i} of a node
 * is the greatest key under its child {@code i}, and the slots past a node's last child hold
 * {@code Long.MAX_VALUE}, so every search covers 32 keys and needs no count. The child region holds one number per
 * node, the prefix sum of the child counts of the nodes before it (plus the root): the breadth-first number of its
 * first child, units of the column numbered after the last inner node; a final entry closes the sum. A lookup
 * takes the first key in the node at least the probe key, at slot {@code i}, and goes on to node
 * {@code child[node] + i}; on the GPU a sub-warp compares the 32 keys of a node at once. Both regions lie in one
 * buffer, the child region 128-byte aligned after the key region.
 */
public final class Harmonia implements SortedKeyIndex {
  /** Keys per node. */
  public static final int FANOUT = 32;
  private static final long NODE_BYTES = FANOUT * Long.BYTES;

  private final SortedKeyColumn column;
  private final ClusteredTreeLevels levels;
  private final ArrowBuf regions;
  private final long childRegion;
  private final long min;
  private final long max;
  private final long buildNanos;

  private Harmonia(SortedKeyColumn column, ClusteredTreeLevels levels, ArrowBuf regions, long childRegion,
      long buildNanos) {
    this.column = column;
    this.levels = levels;
    this.regions = regions;
    this.childRegion = childRegion;
    this.min = column.rows() == 0 ? 0 : column.key(0);
    this.max = column.rows() == 0 ? 0 : column.key(column.rows() - 1);
    this.buildNanos = buildNanos;
  }

  /** Builds both regions over {@code column}, every level on {@code threads} threads. */
  public static Harmonia build(SortedKeyColumn column, BufferAllocator allocator, int threads) {
    long start = System.nanoTime();
    column.requireSortedUnique(threads);
    ClusteredTreeLevels levels = new ClusteredTreeLevels(column.rows(), FANOUT, FANOUT);
    long childRegion = (levels.nodes() * NODE_BYTES + 127) & ~127L;
    ArrowBuf regions = allocator.buffer(childRegion + (levels.nodes() + 1) * Long.BYTES);
    try {
      long keys = regions.memoryAddress();
      long children = keys + childRegion;
      for (int level = 0; level < levels.depth(); level++) {
        int l = level;
        levels.forEachNode(level, threads, (range, from, to) -> {
          for (long node = from; node < to; node++) {
            long number = levels.start(l) + node;
            int count = levels.children(l, node);
            for (int i = 0; i < FANOUT; i++) {
              long key = i < count ? column.key(levels.lastRowOfChild(l, node * FANOUT + i)) : Long.MAX_VALUE;
              MemoryUtil.putLong(keys + number * NODE_BYTES + (long) i * Long.BYTES, key);
            }
            // Every node before this one in its level is full, so the prefix sum of the child counts before it
            // is the next level's start plus FANOUT children per node.
            MemoryUtil.putLong(children + number * Long.BYTES, levels.start(l + 1) + node * FANOUT);
          }
        });
      }
      MemoryUtil.putLong(children + levels.nodes() * Long.BYTES, levels.nodes() + levels.units());
    } catch (RuntimeException | Error e) {
      regions.close();
      throw e;
    }
    return new Harmonia(column, levels, regions, childRegion, System.nanoTime() - start);
  }

  @Override
  public long lookup(long key) {
    if (column.rows() == 0 || key < min || key > max) {
      return -1;
    }
    long keys = regions.memoryAddress();
    long children = keys + childRegion;
    long node = 0;
    for (int level = 0; level < levels.depth(); level++) {
      long slot = OffHeapSearch.lowerBound(keys + node * NODE_BYTES, 3, 0, FANOUT, key);
      node = MemoryUtil.getLong(children + node * Long.BYTES) + slot;
    }
    long first = (node - levels.nodes()) * FANOUT;
    return column.find(first, Math.min(first + FANOUT, column.rows()), key);
  }

  @Override
  public void lookup(long[] keys, int count, long[] rows) {
    LookupGroup group = new LookupGroup();
    long keyRegion = regions.memoryAddress();
    long children = keyRegion + childRegion;
    long[] node = new long[LookupGroup.SIZE];
    for (int first = 0; first < count; first += LookupGroup.SIZE) {
      int n = Math.min(LookupGroup.SIZE, count - first);
      for (int g = 0; g < n; g++) {
        long key = keys[first + g];
        // a key outside the column's range gets empty ranges: no read, no row
        node[g] = column.rows() == 0 || key < min || key > max ? -1 : 0;
      }
      for (int level = 0; level < levels.depth(); level++) {
        for (int g = 0; g < n; g++) {
          group.from[g] = node[g] < 0 ? 0 : node[g] * FANOUT;
          group.to[g] = node[g] < 0 ? 0 : group.from[g] + FANOUT;
        }
        group.lowerBounds(keyRegion, 3, keys, first, n);
        for (int g = 0; g < n; g++) {
          if (node[g] >= 0) {
            node[g] = MemoryUtil.getLong(children + node[g] * Long.BYTES) + group.position[g] - group.from[g];
          }
        }
      }
      for (int g = 0; g < n; g++) {
        long row = (node[g] - levels.nodes()) * FANOUT;
        group.from[g] = node[g] < 0 ? 0 : row;
        group.to[g] = node[g] < 0 ? 0 : Math.min(row + FANOUT, column.rows());
      }
      group.findInColumn(column, keys, first, n, rows);
    }
  }

  /**
   * The arguments of the GPU lookup (harmonia_lookup, after the column's): key region and child region where the
   * GPU sees the buffer at {@code regionsAddress}, inner levels, inner nodes, smallest and greatest key.
   */
  Object[] kernelArguments(long regionsAddress) {
    return new Object[] {regionsAddress, regionsAddress + childRegion, levels.depth(), levels.nodes(), min, max};
  }

  long structureAddress() {
    return regions.memoryAddress();
  }

  /** Inner levels, the root's included. */
  public int height() {
    return levels.depth();
  }

  @Override
  public IndexKind kind() {
    return IndexKind.HARMONIA;
  }

  @Override
  public SortedKeyColumn column() {
    return column;
  }

  @Override
  public long sizeBytes() {
    return childRegion + (levels.nodes() + 1) * Long.BYTES;
  }

  @Override
  public long buildNanos() {
    return buildNanos;
  }

  @Override
  public void close() {
    regions.close();
  }
}
