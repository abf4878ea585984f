package org.spillway.gpu.transfer;

/**
 * Tuning of a transfer pipeline: bytes per chunk (of the widest column), pipeline slots (one stream
 * each; at least two so that transfer and compute overlap) and CPU threads for staged copy.
 */
public record TransferOptions(long chunkBytes, int slots, int stagingThreads) {
  /**
   * 16 MiB chunks, 4 slots (with one chunk of lookahead, two more stay in flight) and 3/4 of the cores,
   * at most 12, for staging. Measured on H100 machines (docs/bench/transfer/README.md): staged copy with
   * 16 MiB chunks reached 0.84-0.96 of raw pinned bandwidth with 12 threads and 0.79-0.98 with 10 (on
   * hosts whose CPU scan ran at 68-92 GB/s), but only 0.80-0.86 with 32 or 64 MiB chunks; pinned copy,
   * zero-copy and UM prefetch varied by at most 4% between 8 and 128 MiB chunks.
   */
  public static final TransferOptions DEFAULT = new TransferOptions(16L << 20, 4,
      Math.max(1, Math.min(12, Runtime.getRuntime().availableProcessors() * 3 / 4)));

  public TransferOptions {
    if (chunkBytes < 4096) {
      throw new IllegalArgumentException("chunkBytes must be at least 4096, got " + chunkBytes);
    }
    if (slots < 2) {
      throw new IllegalArgumentException("slots must be at least 2 to overlap transfer and compute, got " + slots);
    }
    if (stagingThreads < 1) {
      throw new IllegalArgumentException("stagingThreads must be at least 1, got " + stagingThreads);
    }
  }

  public TransferOptions withChunkBytes(long bytes) {
    return new TransferOptions(bytes, slots, stagingThreads);
  }

  public TransferOptions withStagingThreads(int threads) {
    return new TransferOptions(chunkBytes, slots, threads);
  }

  /** Rows per chunk for columns whose widest element has {@code maxWidth} bytes: a multiple of 32 (a warp). */
  public long chunkRows(int maxWidth) {
    return Math.max(32, chunkBytes / maxWidth / 32 * 32);
  }
}
