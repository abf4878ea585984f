package org.spillway.gpu.join.triton;

/**
 * The knobs of {@link TritonJoin}, each chosen automatically unless set (benchmarks and tests set them):
 * the radix bits of the first pass ({@code bits1}, 0..10) and the second ({@code bits2}, 0..12), the share of
 * the partitioned data cached in GPU memory ({@code cacheShare}, 0..1), the GPU memory budget the join
 * sizes itself for ({@code budgetBytes}, never more than the device allocator has left), the rows of a
 * sub-partition's build side the shared-memory table holds ({@code tableCapacity}, larger ones take the
 * overflow path), the tuples of a second-level Hierarchical buffer ({@code l2Tuples}), the partition
 * array's page size ({@code logPageTuples}), the first pass's thread blocks ({@code pass1Blocks}), and
 * whether CPU threads compute the prefix sum from host memory instead of the GPU over the link
 * ({@code cpuPrefixSum}, Sec. 6.2.8). Automatic is -1 (NaN for the cache share).
 */
public record TritonOptions(int bits1, int bits2, double cacheShare, long budgetBytes, int tableCapacity,
    int l2Tuples, int logPageTuples, int pass1Blocks, boolean cpuPrefixSum) {
  /** Table rows by default: 4096 (80 KiB of shared memory, two blocks per SM), as in Sioulas et al. */
  public static final int DEFAULT_TABLE_CAPACITY = 4096;
  /** Most radix bits of the first pass (the prefix sum's histogram width). */
  public static final int MAX_BITS1 = TritonSizing.MAX_BITS1;
  /** Most radix bits of the second pass. */
  public static final int MAX_BITS2 = TritonSizing.MAX_BITS2;
  /** The bucket chains use 16-bit links with one value reserved for their end. */
  public static final int MAX_TABLE_CAPACITY = 65535;
  public static final TritonOptions DEFAULT = new TritonOptions(-1, -1, Double.NaN, -1, DEFAULT_TABLE_CAPACITY, -1,
      -1, -1, false);

  public TritonOptions {
    check("bits1", bits1, -1, TritonSizing.MAX_BITS1);
    check("bits2", bits2, -1, TritonSizing.MAX_BITS2);
    if (!Double.isNaN(cacheShare) && !(cacheShare >= 0 && cacheShare <= 1)) {
      throw new IllegalArgumentException("Triton cacheShare must be in [0, 1] or NaN (automatic), got " + cacheShare);
    }
    if (budgetBytes < -1 || budgetBytes == 0) {
      throw new IllegalArgumentException("Triton budgetBytes must be positive or -1 (automatic), got " + budgetBytes);
    }
    check("tableCapacity", tableCapacity, 1, MAX_TABLE_CAPACITY);
    if (l2Tuples != -1 && (l2Tuples < HierarchicalPartitioner.MIN_L1_TUPLES || Integer.bitCount(l2Tuples) != 1)) {
      throw new IllegalArgumentException("Triton l2Tuples must be a power of two >= "
          + HierarchicalPartitioner.MIN_L1_TUPLES + " or -1 (automatic), got " + l2Tuples);
    }
    check("logPageTuples", logPageTuples, -1, 24);
    if (logPageTuples != -1 && logPageTuples < 3) {
      throw new IllegalArgumentException("Triton logPageTuples must be >= 3 (128-byte pages), got " + logPageTuples);
    }
    if (pass1Blocks < -1 || pass1Blocks == 0) {
      throw new IllegalArgumentException("Triton pass1Blocks must be positive or -1 (automatic), got " + pass1Blocks);
    }
  }

  private static void check(String name, int value, int min, int max) {
    if (value < min || value > max) {
      throw new IllegalArgumentException("Triton " + name + " must be in [" + min + ", " + max + "], got " + value);
    }
  }

  public TritonOptions withBits(int first, int second) {
    return new TritonOptions(first, second, cacheShare, budgetBytes, tableCapacity, l2Tuples, logPageTuples,
        pass1Blocks, cpuPrefixSum);
  }

  public TritonOptions withCacheShare(double share) {
    return new TritonOptions(bits1, bits2, share, budgetBytes, tableCapacity, l2Tuples, logPageTuples, pass1Blocks,
        cpuPrefixSum);
  }

  public TritonOptions withBudget(long bytes) {
    return new TritonOptions(bits1, bits2, cacheShare, bytes, tableCapacity, l2Tuples, logPageTuples, pass1Blocks,
        cpuPrefixSum);
  }

  public TritonOptions withTableCapacity(int rows) {
    return new TritonOptions(bits1, bits2, cacheShare, budgetBytes, rows, l2Tuples, logPageTuples, pass1Blocks,
        cpuPrefixSum);
  }

  public TritonOptions withL2Tuples(int tuples) {
    return new TritonOptions(bits1, bits2, cacheShare, budgetBytes, tableCapacity, tuples, logPageTuples, pass1Blocks,
        cpuPrefixSum);
  }

  public TritonOptions withLogPageTuples(int log) {
    return new TritonOptions(bits1, bits2, cacheShare, budgetBytes, tableCapacity, l2Tuples, log, pass1Blocks,
        cpuPrefixSum);
  }

  public TritonOptions withPass1Blocks(int blocks) {
    return new TritonOptions(bits1, bits2, cacheShare, budgetBytes, tableCapacity, l2Tuples, logPageTuples, blocks,
        cpuPrefixSum);
  }

  public TritonOptions withCpuPrefixSum(boolean onCpu) {
    return new TritonOptions(bits1, bits2, cacheShare, budgetBytes, tableCapacity, l2Tuples, logPageTuples,
        pass1Blocks, onCpu);
  }
}
