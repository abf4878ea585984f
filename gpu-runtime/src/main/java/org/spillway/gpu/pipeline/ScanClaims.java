package org.spillway.gpu.pipeline;

/**
 * The batches of one scan shared by the GPU and the CPU workers, as in the heterogeneous morsel scheduling of Lutz et
 * al., "Pump Up the Volume" (SIGMOD 2020, section 6.1): both processors take work from one dispatcher until none is
 * left, so that neither waits while the other still has batches to do, whatever their speeds. The GPU takes runs of
 * consecutive batches (its chunks) from the front, the CPU single batches from the back; each batch goes to exactly
 * one of them. Batches are claimed a few hundred times per scan, so one lock costs nothing measurable.
 */
public final class ScanClaims {
  private final int batches;
  /** Batches below {@code front} are the GPU's. */
  private int front;
  /** Batches from {@code back} on are the CPU's. */
  private int back;
  /** Whether the GPU may claim no more batches. */
  private boolean frontClosed;

  public ScanClaims(int batches) {
    if (batches < 0) {
      throw new IllegalArgumentException("negative batch count " + batches);
    }
    this.batches = batches;
    this.back = batches;
  }

  /** The number of batches of the scan. */
  public int batches() {
    return batches;
  }

  /**
   * Claims every batch below {@code end} for the GPU (those it holds already stay its own); false, claiming nothing,
   * when the CPU took one of them.
   */
  public synchronized boolean claimFront(int end) {
    if (end > back || frontClosed && end > front) {
      return false;
    }
    front = Math.max(front, end);
    return true;
  }

  /** Claims batch {@code batch} for the CPU (true also when it holds it already); false when it is the GPU's. */
  public synchronized boolean claimBack(int batch) {
    if (batch >= back) {
      return true;
    }
    if (batch < front) {
      return false;
    }
    back = batch;
    return true;
  }

  /** Gives the GPU nothing more: the CPU takes every batch not claimed yet. */
  public synchronized void closeFront() {
    frontClosed = true;
  }

  /** The batches the GPU claimed: {@code 0 .. gpuBatches() - 1}. */
  public synchronized int gpuBatches() {
    return front;
  }

  /** The batches the CPU claimed so far: the last {@code cpuBatches()}. */
  public synchronized int cpuBatches() {
    return batches - back;
  }
}
