package org.spillway.gpu.join.triton;

/**
 * Where a radix partitioning pass with chunked offsets puts its tuples (Lutz et al., SIGMOD '22, Sec. 4):
 * block {@code b} of {@code blocks} reads rows {@code [b * chunk, (b + 1) * chunk)}, and the prefix sum of the
 * per-block histograms gives every (block, partition) region a private range of the output, partition-major
 * (partition 0's regions of blocks 0..B-1, then partition 1's, ...), so that no write needs an atomic.
 *
 * <p>With padding each region is preceded by {@link #PAD_TUPLES} tuples (128 bytes): its first flush starts at
 * the 128-byte boundary below its data and fills the slots up to the data with {@code PAD_KEY}. Readers use
 * the offsets and counts, so padding is never read as data. Offsets count 16-byte tuples.
 */
final class PartitionLayout {
  /** Tuples of padding in front of a region: 128 bytes, one PCIe-friendly aligned transaction. */
  static final int PAD_TUPLES = 8;
  /** What the padding slots a flush writes hold (see radix_partitioning.cuh); counts keep it from being read. */
  static final long PAD_KEY = Long.MIN_VALUE;
  static final long PAD_VALUE = -1;

  private final int blocks;
  private final int fanout;
  private final int padTuples;
  private final long[] counts;
  private final long[] offsets;
  private final long[] partitionRows;
  private final long totalTuples;

  private PartitionLayout(int blocks, int fanout, int padTuples, long[] counts) {
    if (padTuples != 0 && padTuples != PAD_TUPLES) {
      throw new IllegalArgumentException("padding is 0 or " + PAD_TUPLES + " tuples, got " + padTuples);
    }
    if (counts.length != (long) blocks * fanout) {
      throw new IllegalArgumentException(counts.length + " region counts for " + blocks + " blocks x " + fanout
          + " partitions");
    }
    this.blocks = blocks;
    this.fanout = fanout;
    this.padTuples = padTuples;
    this.counts = counts;
    this.offsets = new long[counts.length];
    this.partitionRows = new long[fanout];
    long at = 0;
    for (int p = 0; p < fanout; p++) {
      for (int b = 0; b < blocks; b++) {
        at += padTuples;
        offsets[b * fanout + p] = at;
        at += counts[b * fanout + p];
        partitionRows[p] += counts[b * fanout + p];
      }
    }
    this.totalTuples = at;
  }

  /** The layout of {@code counts[b * fanout + p]} tuples per region. */
  static PartitionLayout of(long[] counts, int blocks, int fanout, int padTuples) {
    return new PartitionLayout(blocks, fanout, padTuples, counts.clone());
  }

  /**
   * Per-block counts at {@code bits} from per-block histograms of the top {@code histogramBits} hash bits
   * ({@code histogram[b * 2^histogramBits + j]}): partition p of b bits holds the histogram bins whose top b
   * bits are p.
   */
  static long[] coarsen(int[] histogram, int blocks, int histogramBits, int bits) {
    if (bits > histogramBits) {
      throw new IllegalArgumentException(bits + " radix bits exceed the " + histogramBits + "-bit histogram");
    }
    int bins = 1 << histogramBits;
    int fanout = 1 << bits;
    long[] out = new long[blocks * fanout];
    for (int b = 0; b < blocks; b++) {
      for (int j = 0; j < bins; j++) {
        out[b * fanout + (j >>> (histogramBits - bits))] += histogram[b * bins + j];
      }
    }
    return out;
  }

  /** Rows per block for {@code rows} rows over {@code blocks} blocks (the last block may get fewer). */
  static long chunkRows(long rows, int blocks) {
    return Math.max(1, (rows + blocks - 1) / blocks);
  }

  int blocks() {
    return blocks;
  }

  int fanout() {
    return fanout;
  }

  int padTuples() {
    return padTuples;
  }

  /** Length of the partition array in tuples, padding included. */
  long totalTuples() {
    return totalTuples;
  }

  long count(int block, int partition) {
    return counts[block * fanout + partition];
  }

  /** Tuple index where region (block, partition)'s data starts. */
  long offset(int block, int partition) {
    return offsets[block * fanout + partition];
  }

  /** Where the region's first flush starts: the 128-byte boundary at or below its data when padded. */
  long flushStart(int block, int partition) {
    long offset = offset(block, partition);
    return padTuples == 0 ? offset : offset & ~(long) (PAD_TUPLES - 1);
  }

  long partitionRows(int partition) {
    return partitionRows[partition];
  }

  long maxPartitionRows() {
    long max = 0;
    for (long rows : partitionRows) {
      max = Math.max(max, rows);
    }
    return max;
  }

  /** Data offsets block-major ({@code [b * fanout + p]}), as the partitioning kernels read them. */
  long[] blockMajorOffsets() {
    return offsets.clone();
  }

  /** Data offsets partition-major ({@code [p * blocks + b]}): the regions of one partition together. */
  long[] partitionMajorOffsets() {
    long[] out = new long[offsets.length];
    for (int p = 0; p < fanout; p++) {
      for (int b = 0; b < blocks; b++) {
        out[p * blocks + b] = offsets[b * fanout + p];
      }
    }
    return out;
  }

  /**
   * Row of partition p where region (b, p) begins when the partition's regions are read one after the other:
   * {@code [p * (blocks + 1) + b]}, with the partition's row count at b = blocks.
   */
  int[] regionPrefix() {
    int[] out = new int[fanout * (blocks + 1)];
    for (int p = 0; p < fanout; p++) {
      if (partitionRows[p] > Integer.MAX_VALUE) {
        throw new IllegalStateException("partition " + p + " holds " + partitionRows[p]
            + " rows; the join phase addresses partitions with 32-bit row numbers");
      }
      int run = 0;
      for (int b = 0; b < blocks; b++) {
        out[p * (blocks + 1) + b] = run;
        run += (int) counts[b * fanout + p];
      }
      out[p * (blocks + 1) + blocks] = run;
    }
    return out;
  }
}
