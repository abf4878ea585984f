package org.spillway.gpu.transfer;

import java.util.ArrayList;
import java.util.List;
import jcuda.driver.JCudaDriver;
import org.spillway.gpu.cuda.CudaDevice;
import org.spillway.gpu.cuda.CudaEvent;
import org.spillway.gpu.cuda.CudaStream;
import org.spillway.gpu.memory.HostMemoryKind;

/**
 * Streams row ranges of host columns to a {@link ChunkConsumer} in chunks with one transfer method,
 * over {@code slots} streams so that chunk i+1 is in transfer while chunk i is consumed. Reusable
 * across runs (its device and staging buffers stay allocated until close); not thread safe.
 */
public final class TransferPipeline implements AutoCloseable {
  private final CudaDevice device;
  private final TransferMethod method;
  private final TransferOptions options;
  private final List<CudaStream> streams = new ArrayList<>();
  private final List<CudaEvent> done = new ArrayList<>();
  private final ChunkMover mover;

  /** A pipeline for {@code method}; throws UnsupportedOperationException with the reason if the device lacks it. */
  public TransferPipeline(CudaDevice device, TransferMethod method, TransferOptions options) {
    TransferSupport support = method.support(device);
    if (!support.supported()) {
      throw new UnsupportedOperationException(method.label() + " is not supported on " + device + ": "
          + support.reason());
    }
    this.device = device;
    this.method = method;
    this.options = options;
    for (int s = 0; s < options.slots(); s++) {
      streams.add(device.newStream());
      done.add(device.newEvent(false));
    }
    this.mover = switch (method) {
      case PAGEABLE_COPY, PINNED_COPY -> new CopyMover(device, options.slots());
      case STAGED_COPY -> new StagedCopyMover(device, options.slots(), options.stagingThreads());
      case DYNAMIC_PINNING -> new DynamicPinningMover(device, options.slots());
      case UM_PREFETCH -> new PrefetchMover(device);
      case ZERO_COPY -> new DirectMover(device, true);
      case UM_MIGRATION, COHERENCE -> new DirectMover(device, false);
    };
  }

  public TransferMethod method() {
    return method;
  }

  public TransferOptions options() {
    return options;
  }

  public CudaDevice device() {
    return device;
  }

  /** The stream of slot 0, on which timing events of a whole run may be recorded. */
  public CudaStream firstStream() {
    return streams.get(0);
  }

  /** Streams all rows of {@code columns} (which must have equal row counts). */
  public void run(List<HostColumn> columns, ChunkConsumer consumer) {
    if (columns.isEmpty()) {
      throw new IllegalArgumentException("no columns to stream");
    }
    run(columns, 0, columns.get(0).rowCount(), consumer);
  }

  /**
   * Streams rows [firstRow, firstRow + rowCount) of every column to {@code consumer}; returns when all
   * chunks are consumed (the consumer's work on the streams included).
   */
  public void run(List<HostColumn> columns, long firstRow, long rowCount, ChunkConsumer consumer) {
    validate(columns, firstRow, rowCount);
    if (rowCount == 0) {
      return;
    }
    device.makeCurrent();
    long chunkRows = options.chunkRows(CopyMover.maxWidth(columns));
    mover.begin(columns, chunkRows);
    boolean[] busy = new boolean[streams.size()];
    long chunks = (rowCount + chunkRows - 1) / chunkRows;
    RuntimeException failure = null;
    try {
      claim(0, busy);
      mover.prepare(0, columns, firstRow, Math.min(chunkRows, rowCount));
      for (long index = 0; index < chunks; index++) {
        int slot = (int) (index % streams.size());
        long row = firstRow + index * chunkRows;
        long rows = Math.min(chunkRows, firstRow + rowCount - row);
        if (index + 1 < chunks) {  // one chunk of lookahead: its host work overlaps this chunk's transfer
          int next = (int) ((index + 1) % streams.size());
          long nextRow = row + chunkRows;
          claim(next, busy);
          mover.prepare(next, columns, nextRow, Math.min(chunkRows, firstRow + rowCount - nextRow));
        }
        CudaStream stream = streams.get(slot);
        long[] addresses = mover.move(slot, columns, row, rows, stream);
        consumer.consume(new DeviceChunk(index, row, rows, addresses), stream);
        done.get(slot).record(stream);
        busy[slot] = true;
      }
    } catch (RuntimeException e) {
      failure = e;
      throw e;
    } finally {
      for (int s = 0; s < streams.size(); s++) {
        try {
          claim(s, busy);
        } catch (RuntimeException e) {  // keep the first failure; a later one is usually its consequence
          if (failure == null) {
            throw e;
          }
          failure.addSuppressed(e);
        }
      }
    }
  }

  /**
   * Waits until the slot's previous chunk is consumed and lets the mover release what it held (also
   * what a chunk prepared but never moved, after a failure, still holds).
   */
  private void claim(int slot, boolean[] busy) {
    if (busy[slot]) {
      busy[slot] = false;
      done.get(slot).synchronize();
    }
    mover.recycle(slot);
  }

  private void validate(List<HostColumn> columns, long firstRow, long rowCount) {
    if (firstRow < 0 || rowCount < 0) {
      throw new IllegalArgumentException("invalid row range: first " + firstRow + ", count " + rowCount);
    }
    for (HostColumn c : columns) {
      if (firstRow + rowCount > c.rowCount()) {
        throw new IllegalArgumentException("rows [" + firstRow + ", " + (firstRow + rowCount) + ") exceed column "
            + c.name() + " of " + c.rowCount() + " rows");
      }
      if (rowCount == 0) {
        continue;
      }
      for (long address : new long[] {c.addressOf(firstRow), c.addressOf(firstRow + rowCount) - 1}) {
        HostMemoryKind kind = HostMemoryKind.of(device, address);
        if (!method.accepts().contains(kind)) {
          throw new IllegalArgumentException(method.label() + " cannot stream column " + c.name() + ": its memory at 0x"
              + Long.toHexString(address) + " is " + kind + ", the method needs " + method.accepts());
        }
      }
    }
  }

  /**
   * Moves managed columns back to host memory (for UM methods, so that each run starts with the data on
   * the CPU as it would after loading); other memory is left alone.
   */
  public void evictToHost(List<HostColumn> columns) {
    device.makeCurrent();
    CudaStream stream = streams.get(0);
    for (HostColumn c : columns) {
      if (c.rowCount() > 0 && HostMemoryKind.of(device, c.address()) == HostMemoryKind.MANAGED) {
        PrefetchMover.prefetch(c.address(), c.byteLength(), JCudaDriver.CU_DEVICE_CPU, stream);
      }
    }
    stream.synchronize();
  }

  @Override
  public void close() {
    mover.close();
    for (CudaEvent e : done) {
      e.close();
    }
    for (CudaStream s : streams) {
      s.close();
    }
  }
}
