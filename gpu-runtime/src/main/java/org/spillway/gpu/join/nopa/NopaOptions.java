package org.spillway.gpu.join.nopa;

import org.spillway.gpu.transfer.TransferMethod;
import org.spillway.gpu.transfer.TransferOptions;

/**
 * Settings of a {@link NopaHashJoin}: how R and S stream to the GPU, where the hash table goes, and the sizes
 * that tests and benchmarks turn.
 *
 * @param method transfer method of both relations (zero-copy by default, P1's choice on PCIe)
 * @param transfer chunk size and pipeline slots
 * @param placement forced table placement, or null to choose it against the budget
 * @param tableBudgetBytes GPU memory the table may take (an emulated GPU memory size for benchmarks), or 0 for
 *     the device allocator's free budget less the join's working buffers
 * @param outputPairsPerChunk capacity of a materializing probe's output buffer per chunk, or 0 for twice the
 *     chunk's rows; a chunk with more output is run again with exactly enough room
 * @param blocksPerSm thread blocks per multiprocessor of each launch (256 threads each)
 */
public record NopaOptions(TransferMethod method, TransferOptions transfer, HashTablePlacement placement,
    long tableBudgetBytes, long outputPairsPerChunk, int blocksPerSm) {
  /** Zero-copy, default chunks, placement chosen against the device budget. */
  public static final NopaOptions DEFAULT = new NopaOptions(TransferMethod.ZERO_COPY, TransferOptions.DEFAULT, null,
      0, 0, 8);

  public NopaOptions {
    if (method == null || transfer == null) {
      throw new IllegalArgumentException("NOPA options need a transfer method and transfer options");
    }
    if (tableBudgetBytes < 0 || outputPairsPerChunk < 0 || blocksPerSm < 1) {
      throw new IllegalArgumentException("NOPA options: table budget " + tableBudgetBytes + ", output pairs per chunk "
          + outputPairsPerChunk + " must be >= 0 and blocks per SM " + blocksPerSm + " >= 1");
    }
  }

  public NopaOptions withMethod(TransferMethod m) {
    return new NopaOptions(m, transfer, placement, tableBudgetBytes, outputPairsPerChunk, blocksPerSm);
  }

  public NopaOptions withTransfer(TransferOptions t) {
    return new NopaOptions(method, t, placement, tableBudgetBytes, outputPairsPerChunk, blocksPerSm);
  }

  /** Forces the placement ({@code null}: choose it). */
  public NopaOptions withPlacement(HashTablePlacement p) {
    return new NopaOptions(method, transfer, p, tableBudgetBytes, outputPairsPerChunk, blocksPerSm);
  }

  public NopaOptions withTableBudget(long bytes) {
    return new NopaOptions(method, transfer, placement, bytes, outputPairsPerChunk, blocksPerSm);
  }

  public NopaOptions withOutputPairsPerChunk(long pairs) {
    return new NopaOptions(method, transfer, placement, tableBudgetBytes, pairs, blocksPerSm);
  }

  public NopaOptions withBlocksPerSm(int blocks) {
    return new NopaOptions(method, transfer, placement, tableBudgetBytes, outputPairsPerChunk, blocks);
  }
}
