package org.spillway.gpu.index;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * The B+-tree with 4 KiB nodes of Schmeißer, Lutz and Markl's INLJ study, clustered: its leaves are the column's
 * own 4 KiB pages, so the tree holds only inner nodes, built bottom-up full from the sorted column.
 *
 * <p>A node is one 4 KiB page of the buffer: a header slot with its number of entries, then up to 255 keys, then
 * as many children (8 bytes each; one slot spare). Entry {@code i} holds the greatest key under child {@code i},
 * so a lookup takes, in every node, the first entry whose key is at least the probe key (a binary search within
 * the node). A child is the number of a node of the level below (its page in the buffer), or in the lowest level
 * the first row of a column page, searched last.
 */
public final class BPlusTree implements SortedKeyIndex {
  /** Bytes per node in the paper's configuration: a page. */
  public static final int NODE_BYTES = 4096;
  private static final long KEYS = Long.BYTES;

  private final SortedKeyColumn column;
  private final ClusteredTreeLevels levels;
  private final ArrowBuf nodes;
  private final int nodeBytes;
  private final long children;
  private final long min;
  private final long max;
  private final long buildNanos;

  private BPlusTree(SortedKeyColumn column, ClusteredTreeLevels levels, ArrowBuf nodes, int nodeBytes,
      long buildNanos) {
    this.column = column;
    this.levels = levels;
    this.nodes = nodes;
    this.nodeBytes = nodeBytes;
    this.children = childrenOffset(fanout(nodeBytes));
    this.min = column.rows() == 0 ? 0 : column.key(0);
    this.max = column.rows() == 0 ? 0 : column.key(column.rows() - 1);
    this.buildNanos = buildNanos;
  }

  /** Builds the tree of 4 KiB nodes over {@code column}, every level on {@code threads} threads. */
  public static BPlusTree build(SortedKeyColumn column, BufferAllocator allocator, int threads) {
    return build(column, allocator, threads, NODE_BYTES);
  }

  /**
   * Builds the tree over {@code column} with nodes and leaf pages of {@code nodeBytes} (a power of two from 64
   * bytes: tests take small ones for deep trees on few rows), every level on {@code threads} threads, into a
   * buffer of {@code allocator}.
   */
  public static BPlusTree build(SortedKeyColumn column, BufferAllocator allocator, int threads, int nodeBytes) {
    if (nodeBytes < 64 || Integer.bitCount(nodeBytes) != 1) {
      throw new IllegalArgumentException("B+-tree nodes are a power of two of at least 64 bytes, got " + nodeBytes);
    }
    long start = System.nanoTime();
    column.requireSortedUnique(threads);
    int fanout = fanout(nodeBytes);
    long childSlots = childrenOffset(fanout);
    ClusteredTreeLevels levels = new ClusteredTreeLevels(column.rows(), nodeBytes / column.width(), fanout);
    ArrowBuf nodes = allocator.buffer(levels.nodes() * nodeBytes);
    try {
      long base = nodes.memoryAddress();
      for (int level = 0; level < levels.depth(); level++) {
        int l = level;
        boolean lowest = level == levels.depth() - 1;
        levels.forEachNode(level, threads, (range, from, to) -> {
          for (long node = from; node < to; node++) {
            long at = base + (levels.start(l) + node) * nodeBytes;
            int count = levels.children(l, node);
            MemoryUtil.putLong(at, count);
            for (int i = 0; i < count; i++) {
              long child = node * fanout + i;
              MemoryUtil.putLong(at + KEYS + (long) i * Long.BYTES, column.key(levels.lastRowOfChild(l, child)));
              MemoryUtil.putLong(at + childSlots + (long) i * Long.BYTES,
                  lowest ? child * levels.unitRows() : levels.start(l + 1) + child);
            }
          }
        });
      }
    } catch (RuntimeException | Error e) {
      nodes.close();
      throw e;
    }
    return new BPlusTree(column, levels, nodes, nodeBytes, System.nanoTime() - start);
  }

  /** Entries per node: a header slot and as many (key, child) pairs as fill the node (255 in 4 KiB). */
  static int fanout(int nodeBytes) {
    return (nodeBytes / Long.BYTES - 2) / 2;
  }

  private static long childrenOffset(int fanout) {
    return KEYS + (long) fanout * Long.BYTES;
  }

  @Override
  public long lookup(long key) {
    if (column.rows() == 0 || key < min || key > max) {
      return -1;
    }
    long base = nodes.memoryAddress();
    long node = 0;
    for (int level = 0; ; level++) {
      long at = base + node * nodeBytes;
      long entry = OffHeapSearch.lowerBound(at + KEYS, 3, 0, MemoryUtil.getLong(at), key);
      long child = MemoryUtil.getLong(at + children + entry * Long.BYTES);
      if (level == levels.depth() - 1) {
        return column.find(child, Math.min(child + levels.unitRows(), column.rows()), key);
      }
      node = child;
    }
  }

  @Override
  public void lookup(long[] keys, int count, long[] rows) {
    LookupGroup group = new LookupGroup();
    long base = nodes.memoryAddress();
    long nodeLongs = nodeBytes / Long.BYTES;
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
          group.from[g] = node[g] < 0 ? 0 : node[g] * nodeLongs + 1;
          group.to[g] = node[g] < 0 ? 0 : group.from[g] + MemoryUtil.getLong(base + node[g] * nodeBytes);
        }
        group.lowerBounds(base, 3, keys, first, n);
        for (int g = 0; g < n; g++) {
          if (node[g] >= 0) {
            node[g] = MemoryUtil.getLong(base + node[g] * nodeBytes + children
                + (group.position[g] - group.from[g]) * Long.BYTES);
          }
        }
      }
      for (int g = 0; g < n; g++) {
        group.from[g] = Math.max(0, node[g]);
        group.to[g] = node[g] < 0 ? 0 : Math.min(node[g] + levels.unitRows(), column.rows());
      }
      group.findInColumn(column, keys, first, n, rows);
    }
  }

  /**
   * The arguments of the GPU lookup (b_plus_tree_lookup, after the column's): the nodes at {@code nodesAddress}
   * (where the GPU sees the buffer), slots a node, fanout, inner levels, rows a page, smallest and greatest key.
   */
  Object[] kernelArguments(long nodesAddress) {
    return new Object[] {nodesAddress, (long) nodeBytes / Long.BYTES, fanout(nodeBytes), levels.depth(),
        levels.unitRows(), min, max};
  }

  long structureAddress() {
    return nodes.memoryAddress();
  }

  /** Inner levels, the root's included. */
  public int height() {
    return levels.depth();
  }

  @Override
  public IndexKind kind() {
    return IndexKind.BTREE;
  }

  @Override
  public SortedKeyColumn column() {
    return column;
  }

  @Override
  public long sizeBytes() {
    return levels.nodes() * nodeBytes;
  }

  @Override
  public long buildNanos() {
    return buildNanos;
  }

  @Override
  public void close() {
    nodes.close();
  }
}
