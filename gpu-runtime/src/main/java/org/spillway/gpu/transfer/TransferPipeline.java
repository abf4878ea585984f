package org.spillway.gpu.transfer;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import jcuda.driver.JCudaDriver;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.CudaEvent;
import org.spillway.gpu.device.CudaStream;
import org.spillway.gpu.device.HostMemoryKind;

/**
 * Streams row ranges of host columns to a {@link ChunkConsumer} in chunks with one transfer method,
 * over {@code slots} streams so that chunk i+1 is in transfer while chunk i is consumed. Reusable
 * across runs (its device and staging buffers stay allocated until close, see {@link TransferPipelinePool});
 * not thread safe.
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
    long chunkRows = options.chunkRows(CopyMover.maxWidth(columns));
    Part[] only = {new Part(0, columns, firstRow, rowCount)};
    stream(() -> {
      Part p = only[0];
      only[0] = null;
      return p;
    }, chunkRows, chunkRows * CopyMover.maxWidth(columns), (part, chunk, stream) -> consumer.consume(chunk, stream));
  }

  /**
   * One part of a {@link #stream}: rows [firstRow, firstRow + rows) of columns of equal row counts (an Arrow
   * batch, say). A part may have no columns: its chunks then reach the consumer with no addresses. A part may be
   * joined by {@code following} segments (the same columns of later batches): then it travels as one chunk, its
   * rows and each segment's back to back in the slot's buffers, which only a pipeline that
   * {@link #joinsSegments() joins segments} takes; every piece but the last must hold a multiple of 8 rows, so that
   * validity bitmaps continue on a byte boundary.
   */
  public record Part(int id, List<HostColumn> columns, long firstRow, long rows, List<Segment> following) {
    public Part {
      columns = List.copyOf(columns);
      following = List.copyOf(following);
      if (!following.isEmpty() && rows % 8 != 0) {
        throw new IllegalArgumentException("a part joined by segments must hold a multiple of 8 rows, got " + rows);
      }
      for (int i = 0; i + 1 < following.size(); i++) {
        if (following.get(i).rows() % 8 != 0 || following.get(i).columns().size() != columns.size()) {
          throw new IllegalArgumentException("segment " + i + " of part " + id + " must hold " + columns.size()
              + " columns and a multiple of 8 rows");
        }
      }
    }

    public Part(int id, List<HostColumn> columns, long firstRow, long rows) {
      this(id, columns, firstRow, rows, List.of());
    }

    /** Its rows and those of the segments that follow it. */
    public long totalRows() {
      return rows + following.stream().mapToLong(Segment::rows).sum();
    }
  }

  /** Rows [firstRow, firstRow + rows) of the columns of a later batch that join a {@link Part}'s chunk. */
  public record Segment(List<HostColumn> columns, long firstRow, long rows) {
    public Segment {
      columns = List.copyOf(columns);
    }
  }

  /** Whether this pipeline's method copies, so that a part may be joined by segments into one chunk. */
  public boolean joinsSegments() {
    return method.joinsSegments();
  }

  /** Receives each chunk of a {@link #stream} together with the part it belongs to. */
  @FunctionalInterface
  public interface PartConsumer {
    void consume(Part part, DeviceChunk chunk, CudaStream stream);
  }

  /**
   * Streams the parts that {@code parts} hands out (null at the end), in chunks of at most {@code chunkRows}
   * rows (a multiple of 32), through the slots one after the other without waiting between parts: the link
   * stays busy across part boundaries. Returns when all chunks are consumed.
   */
  public void stream(Supplier<Part> parts, long chunkRows, PartConsumer consumer) {
    if (chunkRows <= 0 || chunkRows % 32 != 0) {
      throw new IllegalArgumentException("chunk rows must be a positive multiple of 32, got " + chunkRows);
    }
    stream(() -> {
      Part p = parts.get();
      if (p != null) {
        validate(p.columns(), p.firstRow(), p.rows());
        if (!p.following().isEmpty() && (!joinsSegments() || p.totalRows() > chunkRows)) {
          throw new IllegalArgumentException("part " + p.id() + " joins " + p.following().size() + " segments into "
              + p.totalRows() + " rows, which " + method.label() + " chunks of " + chunkRows + " rows cannot take");
        }
        for (Segment segment : p.following()) {
          validate(segment.columns(), segment.firstRow(), segment.rows());
        }
      }
      return p;
    }, chunkRows, chunkRows * ColumnType.MAX_WIDTH, consumer);
  }

  /** One chunk of a part, {@code first} when it is the part's first. */
  private record Chunk(Part part, long row, long rows, boolean first) {}

  private void stream(Supplier<Part> parts, long chunkRows, long bytesPerColumn, PartConsumer consumer) {
    device.makeCurrent();
    mover.reset();
    Supplier<Chunk> chunks = chunksOf(parts, chunkRows);
    boolean[] busy = new boolean[streams.size()];
    RuntimeException failure = null;
    try {
      Chunk current = begin(chunks.get(), bytesPerColumn);
      if (current == null) {
        return;
      }
      claim(0, busy);
      mover.prepare(0, current.part().columns(), current.row(), current.rows());
      for (long index = 0; current != null; index++) {
        int slot = (int) (index % streams.size());
        Chunk next = begin(chunks.get(), bytesPerColumn);
        if (next != null) {  // one chunk of lookahead: its host work overlaps this chunk's transfer
          int nextSlot = (int) ((index + 1) % streams.size());
          claim(nextSlot, busy);
          mover.prepare(nextSlot, next.part().columns(), next.row(), next.rows());
        }
        CudaStream stream = streams.get(slot);
        long[] addresses = current.part().following().isEmpty()
            ? mover.move(slot, current.part().columns(), current.row(), current.rows(), stream)
            : ((CopyMover) mover).moveJoined(slot, current.part(), stream);
        consumer.consume(current.part(), new DeviceChunk(index, current.row(), current.rows(), addresses), stream);
        done.get(slot).record(stream);
        busy[slot] = true;
        current = next;
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

  /** Lets the mover size and set up for a part before its first chunk; returns the chunk. */
  private Chunk begin(Chunk chunk, long bytesPerColumn) {
    if (chunk != null && chunk.first()) {
      mover.reserve(chunk.part().columns().size(), bytesPerColumn);
      mover.begin(chunk.part().columns());
    }
    return chunk;
  }

  /** The chunks of the parts in order, skipping parts without rows. */
  private static Supplier<Chunk> chunksOf(Supplier<Part> parts, long chunkRows) {
    return new Supplier<>() {
      private Part part;
      private long offset;

      @Override public Chunk get() {
        while (part == null || offset >= part.totalRows()) {
          part = parts.get();
          offset = 0;
          if (part == null) {
            return null;
          }
        }
        long rows = part.following().isEmpty() ? Math.min(chunkRows, part.rows() - offset) : part.totalRows();
        Chunk c = new Chunk(part, part.firstRow() + offset, rows, offset == 0);
        offset += rows;
        return c;
      }
    };
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
      long start = c.addressOf(firstRow);
      for (long address : new long[] {start, start + c.bytes(rowCount) - 1}) {
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
