package org.spillway.gpu.transfer;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.util.MemoryUtil;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.CudaStream;
import org.spillway.gpu.device.HostBuffer;

/**
 * Staged copy: CPU threads copy each chunk from pageable memory into a pinned ring slot, which then goes
 * to the GPU by DMA. The copies of chunk i+1 are queued before chunk i is handed to the copy engine, so
 * the threads never wait at a chunk boundary.
 */
final class StagedCopyMover implements ChunkMover {
  /** Below this a copy is not worth handing to another thread. */
  private static final long MIN_PART = 64L << 10;

  private final CudaDevice device;
  private final int slotCount;
  private final int threads;
  private final DeviceSlots deviceSlots;
  private final List<HostBuffer[]> staging = new ArrayList<>();  // per column, per slot
  private final ExecutorService pool;
  private final List<List<Future<?>>> pending = new ArrayList<>();  // per slot: queued staging copies
  private long stagingBytes;

  /** Created by TransferPipeline for the staged copy method. */
  StagedCopyMover(CudaDevice device, int slots, int threads) {
    this.device = device;
    this.slotCount = slots;
    this.threads = threads;
    this.deviceSlots = new DeviceSlots(device, slots);
    for (int s = 0; s < slots; s++) {
      pending.add(new ArrayList<>());
    }
    this.pool = Executors.newFixedThreadPool(threads, r -> {
      Thread t = new Thread(r, "spillway-staging");
      t.setDaemon(true);
      return t;
    });
  }

  @Override
  public void reserve(int columns, long bytes) {
    deviceSlots.ensure(columns, bytes);
    if (bytes > stagingBytes) {
      freeStaging();
      stagingBytes = bytes;
    }
    while (staging.size() < columns) {
      HostBuffer[] perSlot = new HostBuffer[slotCount];
      for (int s = 0; s < slotCount; s++) {
        perSlot[s] = device.pinnedAllocator().allocate(stagingBytes);
      }
      staging.add(perSlot);
    }
  }

  /** Queues the copies of the chunk into the slot's staging buffers; the pool works through them in order. */
  @Override
  public void prepare(int slot, List<HostColumn> columns, long firstRow, long rows) {
    List<Future<?>> parts = pending.get(slot);
    for (int c = 0; c < columns.size(); c++) {
      HostColumn column = columns.get(c);
      long src = column.addressOf(firstRow);
      long dst = staging.get(c)[slot].address();
      long bytes = column.bytes(rows);
      int n = (int) Math.max(1, Math.min(threads, bytes / MIN_PART));
      long part = (bytes / n + 63) / 64 * 64;  // cache-line multiples: threads never share a line
      for (long off = 0; off < bytes; off += part) {
        long o = off;
        long len = Math.min(part, bytes - off);
        parts.add(pool.submit(() -> MemoryUtil.copyMemory(src + o, dst + o, len)));
      }
    }
  }

  @Override
  public long[] move(int slot, List<HostColumn> columns, long firstRow, long rows, CudaStream stream) {
    awaitCopies(slot);
    long[] addresses = new long[columns.size()];
    for (int c = 0; c < columns.size(); c++) {
      long bytes = columns.get(c).bytes(rows);
      addresses[c] = deviceSlots.get(c, slot).address();
      CopyMover.copyAsync(addresses[c], staging.get(c)[slot].address(), bytes, stream);
    }
    return addresses;
  }

  private void awaitCopies(int slot) {
    List<Future<?>> parts = pending.get(slot);
    try {
      for (Future<?> f : parts) {
        f.get();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("staged copy interrupted", e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("staging copy failed: " + e.getCause(), e.getCause());
    } finally {
      parts.clear();
    }
  }

  /** The slot is free again; copies still queued for it (after a failed run) are cancelled. */
  @Override
  public void recycle(int slot) {
    pending.get(slot).forEach(f -> f.cancel(false));
    pending.get(slot).clear();
  }

  private void freeStaging() {
    for (HostBuffer[] perSlot : staging) {
      for (HostBuffer b : perSlot) {
        b.close();
      }
    }
    staging.clear();
  }

  @Override
  public void close() {
    pool.shutdownNow();
    try {
      // A copy still running (after a failed run) writes into staging memory: free it only afterwards.
      if (!pool.awaitTermination(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException("staging threads did not stop within 30 s; staging memory not freed");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while stopping staging threads; staging memory not freed", e);
    }
    freeStaging();
    deviceSlots.close();
  }
}
