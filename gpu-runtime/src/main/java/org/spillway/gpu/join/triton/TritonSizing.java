package org.spillway.gpu.join.triton;

import org.spillway.gpu.device.GpuMemoryException;

/**
 * How {@link TritonJoin} sizes itself for a GPU memory budget C, from the exact partition sizes the prefix
 * sum found (Lutz et al., SIGMOD '22, Sec. 5.1 and 5.3):
 * <ul>
 *   <li>B1, the first pass's bits, is the smallest that lets two partition pairs plus their second-pass
 *   outputs (the two streams of the join phase) fit in C/2, and that leaves each build partition small
 *   enough for a second pass of at most {@link #PREFERRED_BITS2} bits;</li>
 *   <li>B2 makes the largest build partition's sub-partitions hold half a shared-memory table on average,
 *   so that uniform data never overflows it (skewed data may: that is the overflow path's job);</li>
 *   <li>the cache share is what the budget leaves once the larger of the first pass's buffers and the join
 *   phase's pipeline is set aside, as a share of the partition array.</li>
 * </ul>
 * Each can be forced through {@link TritonOptions}; a plan that cannot fit fails with the bytes it needs.
 */
final class TritonSizing {
  static final int MAX_BITS1 = HierarchicalPartitioner.HISTOGRAM_BITS;
  /** Above 10 bits the second pass's shared-memory buffers drop under 8 tuples (128 bytes). */
  static final int PREFERRED_BITS2 = 10;
  static final int MAX_BITS2 = 12;
  /** Kept free for the small buffers (page tables, counters) and the allocator's rounding. */
  static final long SLACK_BYTES = 16L << 20;
  /** Probe rows per work item of an oversized sub-partition (the overflow path). */
  static final int PROBE_CHUNK = 8192;
  /** Second-level buffers may take at most this share of the budget. */
  static final int L2_POOL_DIVISOR = 8;

  private TritonSizing() {}

  /** What sizing needs to know of the device. */
  record Device(int multiprocessors, int sharedBytesPerBlock) {
    /** Blocks of a second-pass kernel: half the SMs, as each of the two streams gets half (Sec. 5.2). */
    int pass2Blocks() {
      return Math.max(1, multiprocessors / 2);
    }

    /** Blocks of a join kernel: two per SM of the stream's half (80 KiB tables). */
    int joinBlocks() {
      return 2 * pass2Blocks();
    }
  }

  /**
   * One join's demand: the non-NULL rows per top-{@link HierarchicalPartitioner#HISTOGRAM_BITS} hash bin of
   * each side, each side's first-pass blocks, and whether the probe side needs match flags (not INNER).
   */
  record Demand(long[] buildBins, long[] probeBins, int buildBlocks, int probeBlocks, boolean matchFlags) {}

  /** The sizes a join runs with. */
  record Plan(int bits1, int bits2, double cacheShare, int l1Tuples, int l2Tuples, int pass2L1Tuples,
      long maxBuildRows, long maxProbeRows, long pass1Bytes, long pipelineBytes, long arrayBytes) {}

  /** Bytes of the shared-memory hash table of {@code capacity} rows: keys, values, links and 2048 heads. */
  static int tableBytes(int capacity) {
    return 18 * capacity + 4 * 2048;
  }

  /** The largest partition of {@code bins} (histogram bins) at {@code bits} radix bits. */
  static long maxPartition(long[] bins, int bits) {
    int histogramBits = Integer.numberOfTrailingZeros(bins.length);
    long max = 0;
    long run = 0;
    int group = 1 << (histogramBits - bits);
    for (int j = 0; j < bins.length; j++) {
      run += bins[j];
      if ((j + 1) % group == 0) {
        max = Math.max(max, run);
        run = 0;
      }
    }
    return max;
  }

  /** Second-pass bits that leave at most {@code capacity / 2} rows per sub-partition of {@code maxBuildRows}. */
  static int bits2For(long maxBuildRows, int capacity) {
    long target = Math.max(1, capacity / 2);
    int bits = 0;
    while (bits < 62 && ((maxBuildRows + (1L << bits) - 1) >> bits) > target) {
      bits++;
    }
    return bits;
  }

  /** Rows of the partition array of one side: its non-NULL rows plus the padding of every region. */
  static long arrayTuples(long[] bins, int blocks, int bits) {
    long rows = 0;
    for (long n : bins) {
      rows += n;
    }
    return rows + (long) blocks * (1L << bits) * PartitionLayout.PAD_TUPLES;
  }

  /** The join phase's GPU memory: two streams' partition pairs, their second-pass outputs and tables. */
  static long pipelineBytes(Demand d, Device device, int bits1, int bits2, long maxBuild, long maxProbe) {
    long fanout2 = 1L << bits2;
    long perStream = 32 * (maxBuild + maxProbe) + (d.matchFlags ? maxProbe : 0)
        + 16 * fanout2 * device.pass2Blocks() + 16 * (fanout2 + 1);
    long regionTables = (1L << bits1) * (12L * (d.buildBlocks + d.probeBlocks) + 8);
    return 2 * perStream + regionTables;
  }

  /** The first pass's GPU memory besides the cache: second-level buffers and offsets. */
  static long pass1Bytes(Demand d, int bits1, int l2Tuples) {
    int blocks = Math.max(d.buildBlocks, d.probeBlocks);
    return HierarchicalPartitioner.l2PoolBytes(blocks, bits1, l2Tuples) + 8L * (1L << bits1) * blocks;
  }

  static Plan plan(Demand d, Device device, TritonOptions options, long budget) {
    if (tableBytes(options.tableCapacity()) > device.sharedBytesPerBlock()) {
      throw new IllegalArgumentException("TritonJoin: a table of " + options.tableCapacity() + " rows needs "
          + tableBytes(options.tableCapacity()) + " bytes of shared memory; a block has "
          + device.sharedBytesPerBlock());
    }
    int bits1 = options.bits1() >= 0 ? options.bits1() : chooseBits1(d, device, options, budget);
    long maxBuild = maxPartition(d.buildBins, bits1);
    long maxProbe = maxPartition(d.probeBins, bits1);
    int bits2 = bits2(options, maxBuild);
    int l1 = HierarchicalPartitioner.l1Tuples(bits1, device.sharedBytesPerBlock());
    int pass2L1 = SharedPartitioner.l1Tuples(bits2, device.sharedBytesPerBlock());
    if (l1 == 0 || pass2L1 == 0) {
      throw new IllegalArgumentException("TritonJoin: " + device.sharedBytesPerBlock() + " bytes of shared memory "
          + "per block cannot hold the buffers of " + bits1 + "+" + bits2 + " radix bits");
    }
    int l2 = options.l2Tuples() > 0 ? Math.max(options.l2Tuples(), l1) : HierarchicalPartitioner.DEFAULT_L2_TUPLES;
    while (options.l2Tuples() < 0 && l2 > l1 && pass1Bytes(d, bits1, l2) > budget / L2_POOL_DIVISOR) {
      l2 /= 2;
    }
    long pass1 = pass1Bytes(d, bits1, l2);
    long pipeline = pipelineBytes(d, device, bits1, bits2, maxBuild, maxProbe);
    long needed = Math.max(pass1, pipeline) + SLACK_BYTES;
    long arrayBytes = 16 * (arrayTuples(d.buildBins, d.buildBlocks, bits1)
        + arrayTuples(d.probeBins, d.probeBlocks, bits1));
    if (needed > budget) {
      throw new GpuMemoryException("TritonJoin at " + bits1 + "+" + bits2 + " radix bits needs " + needed
          + " bytes of GPU memory besides its cache (largest partitions: " + maxBuild + " build and " + maxProbe
          + " probe rows; first pass " + pass1 + ", join phase " + pipeline + " bytes); the budget is " + budget);
    }
    double share = Math.min(1.0, (double) (budget - needed) / Math.max(1, arrayBytes));
    if (!Double.isNaN(options.cacheShare())) {
      if (options.cacheShare() * arrayBytes > budget - needed) {
        throw new GpuMemoryException("TritonJoin: caching " + options.cacheShare() + " of " + arrayBytes
            + " partitioned bytes does not fit the " + (budget - needed) + " bytes the budget of " + budget
            + " leaves");
      }
      share = options.cacheShare();
    }
    return new Plan(bits1, bits2, share, l1, l2, pass2L1, maxBuild, maxProbe, pass1, pipeline, arrayBytes);
  }

  private static int bits2(TritonOptions options, long maxBuild) {
    return options.bits2() >= 0 ? options.bits2()
        : Math.min(MAX_BITS2, bits2For(maxBuild, options.tableCapacity()));
  }

  /** The C/2 rule, preferring a second pass of at most PREFERRED_BITS2 bits; the smallest such B1. */
  private static int chooseBits1(Demand d, Device device, TritonOptions options, long budget) {
    int fallback = -1;
    for (int bits1 = 0; bits1 <= MAX_BITS1; bits1++) {
      long maxBuild = maxPartition(d.buildBins, bits1);
      int bits2 = bits2(options, maxBuild);
      long pipeline = pipelineBytes(d, device, bits1, bits2, maxBuild, maxPartition(d.probeBins, bits1));
      if (pipeline <= budget / 2) {
        if (bits2For(maxBuild, options.tableCapacity()) <= PREFERRED_BITS2) {
          return bits1;
        }
        fallback = fallback < 0 ? bits1 : fallback;
      }
    }
    return fallback >= 0 ? fallback : MAX_BITS1;
  }
}
