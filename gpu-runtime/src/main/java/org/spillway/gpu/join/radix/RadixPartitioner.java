package org.spillway.gpu.join.radix;

import org.spillway.gpu.join.JoinInput;
import org.spillway.gpu.join.JoinOutput;
import org.spillway.gpu.join.JoinWorkers;
import org.spillway.gpu.join.LinearProbingTable;

/**
 * Radix partitioning by hash bits, in the shape of Barthels et al.'s PRO and Sioulas et al.: a histogram per
 * chunk, a prefix sum that gives every (chunk, partition) pair a private output region, then a scatter
 * without atomics; an optional second pass re-partitions each first-pass partition on the next bits.
 *
 * <p>The radix of a key is taken from the top bits of its multiply-shift hash, so the partitions are
 * balanced for any key distribution short of heavy duplicates, and the table built per partition uses
 * the hash bits below them.
 */
public final class RadixPartitioner {
  /** Rows per histogram chunk of the first pass. */
  static final int CHUNK_ROWS = 1 << 16;

  private RadixPartitioner() {
  }

  /** Partitioned {key, value} tuples: partition {@code p} holds rows {@code bounds[p] .. bounds[p+1]-1}. */
  record Partitioned(long[] keys, long[] values, int[] bounds) {
    int size(int partition) {
      return bounds[partition + 1] - bounds[partition];
    }
  }

  /** Number of non-NULL rows, the size of the partitioned copy. */
  static int nonNullRows(JoinInput in) {
    int n = 0;
    for (int r = 0; r < in.rows(); r++) {
      n += in.isNull(r) ? 0 : 1;
    }
    return n;
  }

  /**
   * Partitions the non-NULL rows of {@code in} into {@code 2^(bits1+bits2)} partitions, carrying the value
   * that {@code output} needs (row index or payload).
   */
  static Partitioned partition(JoinInput in, JoinOutput output, int bits1, int bits2, JoinWorkers workers) {
    int rows = nonNullRows(in);
    long[] keys = new long[rows];
    long[] values = new long[rows];
    int[] bounds1 = firstPass(in, output, bits1, keys, values, workers);
    if (bits2 == 0) {
      return new Partitioned(keys, values, bounds1);
    }
    long[] keys2 = new long[rows];
    long[] values2 = new long[rows];
    int fanout2 = 1 << bits2;
    int[] bounds = new int[(1 << bits1) * fanout2 + 1];
    bounds[bounds.length - 1] = rows;
    workers.forEachMorsel(1 << bits1, (w, p) -> {
      int[] sub = scatter(keys, values, bounds1[p], bounds1[p + 1], bits1, bits2, keys2, values2);
      System.arraycopy(sub, 0, bounds, p * fanout2, fanout2);
    });
    return new Partitioned(keys2, values2, bounds);
  }

  /** Hash bits [shift, shift + bits) from the top of the key's multiply-shift hash (TritonJoin uses them too). */
  public static int digit(long key, int shift, int bits) {
    return bits == 0 ? 0 : (int) (((key * LinearProbingTable.MULTIPLIER) << shift) >>> (64 - bits));
  }

  /** The first pass over the base columns, chunk-parallel; returns the partition bounds. */
  private static int[] firstPass(JoinInput in, JoinOutput output, int bits, long[] keys, long[] values,
      JoinWorkers workers) {
    int fanout = 1 << bits;
    int chunks = JoinWorkers.morselCount(in.rows(), CHUNK_ROWS);
    int[][] cursor = new int[chunks][];
    workers.forEachMorsel(chunks, (w, c) -> {
      int[] histogram = new int[fanout];
      int end = Math.min(in.rows(), (c + 1) * CHUNK_ROWS);
      for (int r = c * CHUNK_ROWS; r < end; r++) {
        if (!in.isNull(r)) {
          histogram[digit(in.key(r), 0, bits)]++;
        }
      }
      cursor[c] = histogram;
    });
    // Prefix sum in (partition, chunk) order turns the histograms into each chunk's write cursors.
    int[] bounds = new int[fanout + 1];
    int offset = 0;
    for (int p = 0; p < fanout; p++) {
      bounds[p] = offset;
      for (int c = 0; c < chunks; c++) {
        int count = cursor[c][p];
        cursor[c][p] = offset;
        offset += count;
      }
    }
    bounds[fanout] = offset;
    workers.forEachMorsel(chunks, (w, c) -> {
      int[] at = cursor[c];
      int end = Math.min(in.rows(), (c + 1) * CHUNK_ROWS);
      for (int r = c * CHUNK_ROWS; r < end; r++) {
        if (!in.isNull(r)) {
          long key = in.key(r);
          int pos = at[digit(key, 0, bits)]++;
          keys[pos] = key;
          values[pos] = in.value(r, output);
        }
      }
    });
    return bounds;
  }

  /**
   * Single-threaded pass over rows {@code from .. to-1} of the source arrays on the hash bits after the top
   * {@code shift}; writes to the same row range of the target arrays and returns the sub-partition starts.
   */
  private static int[] scatter(long[] keys, long[] values, int from, int to, int shift, int bits, long[] outKeys,
      long[] outValues) {
    int fanout = 1 << bits;
    int[] at = new int[fanout];
    for (int r = from; r < to; r++) {
      at[digit(keys[r], shift, bits)]++;
    }
    int[] starts = new int[fanout];
    int offset = from;
    for (int p = 0; p < fanout; p++) {
      starts[p] = offset;
      int count = at[p];
      at[p] = offset;
      offset += count;
    }
    for (int r = from; r < to; r++) {
      int pos = at[digit(keys[r], shift, bits)]++;
      outKeys[pos] = keys[r];
      outValues[pos] = values[r];
    }
    return starts;
  }
}
