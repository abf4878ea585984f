package org.spillway.storage;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.memory.AllocationManager;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.netty.NettyAllocationManager;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * Arrow memory that is kept when released and handed out again to a later allocation of the same size (Arrow rounds
 * sizes below its chunk size up to powers of two, so sizes repeat), up to a limit of bytes kept; memory kept and not
 * asked for again within {@link #idleNanos} is freed by a daemon thread.
 *
 * <p>Why: a {@link TableWriter} stages about the table's size in batches that its commit releases. Fresh memory is
 * faulted in by the kernel 4 KiB at a time, and freed memory goes back to the kernel (malloc unmaps large blocks); at
 * SF 1 that was 300 to 470 thousand page faults an import, a quarter to a half of a warm import's CPU as system time
 * (docs/bench/import, sessions 13 and 14). Kept memory is already mapped: the commit's encoded batches reuse what its
 * first written batches released, and the next import reuses the last one's.
 *
 * <p>Blocks below {@link #MIN_KEPT_BYTES} are not kept (malloc reuses small blocks itself). Memory handed out again is
 * not cleared, as with Arrow's pooled default; Arrow clears what a new vector needs cleared.
 */
final class RecycledMemory implements AllocationManager.Factory {
  static final long MIN_KEPT_BYTES = 64 << 10;
  private static final long DEFAULT_IDLE_NANOS = TimeUnit.SECONDS.toNanos(30);

  private final long limitBytes;
  private final long idleNanos;
  /** Kept blocks by size, the most recently released last; guarded by this. */
  private final Map<Long, ArrayDeque<Block>> kept = new HashMap<>();
  /** Bytes in {@link #kept}; guarded by this. */
  private long keptBytes;
  /** Whether a trim is scheduled; guarded by this. */
  private boolean trimScheduled;
  private final ScheduledExecutorService trimmer;
  /** Bytes handed out and not yet released: 0 once every allocator over this memory is closed without leaks. */
  private final AtomicLong outstandingBytes = new AtomicLong();

  RecycledMemory(long limitBytes, long idleNanos) {
    this.limitBytes = limitBytes;
    this.idleNanos = idleNanos;
    this.trimmer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread thread = new Thread(r, "spillway-recycled-memory-trim");
      thread.setDaemon(true);
      return thread;
    });
  }

  /** The process's recycled memory: kept up to what one writer may stage in memory, for 30 s. */
  static RecycledMemory shared() {
    return Shared.INSTANCE;
  }

  private static final class Shared {
    static final RecycledMemory INSTANCE = new RecycledMemory(TableWriter.defaultStagingMemory(), DEFAULT_IDLE_NANOS);
  }

  @Override
  public AllocationManager create(BufferAllocator accountingAllocator, long size) {
    Recycled memory = new Recycled(accountingAllocator, take(size), size);
    outstandingBytes.addAndGet(size);
    return memory;
  }

  @Override
  public ArrowBuf empty() {
    return NettyAllocationManager.FACTORY.empty();
  }

  /** Bytes handed out and not yet released. */
  long outstandingBytes() {
    return outstandingBytes.get();
  }

  /** Bytes kept for reuse now. */
  synchronized long keptBytes() {
    return keptBytes;
  }

  /** Frees every kept block (for tests, and for a caller that knows the memory is not needed again soon). */
  void freeKept() {
    trim(Long.MAX_VALUE);
  }

  private long take(long size) {
    if (size >= MIN_KEPT_BYTES) {
      synchronized (this) {
        ArrayDeque<Block> blocks = kept.get(size);
        Block block = blocks == null ? null : blocks.pollLast();
        if (block != null) {
          keptBytes -= size;
          return block.address;
        }
      }
    }
    return MemoryUtil.allocateMemory(size);
  }

  private void give(long address, long size) {
    outstandingBytes.addAndGet(-size);
    if (size >= MIN_KEPT_BYTES) {
      synchronized (this) {
        if (keptBytes + size <= limitBytes) {
          kept.computeIfAbsent(size, s -> new ArrayDeque<>()).addLast(new Block(address, System.nanoTime()));
          keptBytes += size;
          scheduleTrim();
          return;
        }
      }
    }
    MemoryUtil.freeMemory(address);
  }

  private void scheduleTrim() {
    if (!trimScheduled) {
      trimScheduled = true;
      trimmer.schedule(() -> trim(System.nanoTime() - idleNanos), idleNanos, TimeUnit.NANOSECONDS);
    }
  }

  /** Frees the blocks released before {@code releasedBefore} (nanoTime; Long.MAX_VALUE: all); reschedules for the rest. */
  private void trim(long releasedBefore) {
    ArrayDeque<Block> freed = new ArrayDeque<>();
    synchronized (this) {
      trimScheduled = false;
      for (Iterator<Map.Entry<Long, ArrayDeque<Block>>> it = kept.entrySet().iterator(); it.hasNext(); ) {
        Map.Entry<Long, ArrayDeque<Block>> entry = it.next();
        ArrayDeque<Block> blocks = entry.getValue();
        // released in order, so the oldest are first
        while (!blocks.isEmpty() && (releasedBefore == Long.MAX_VALUE || blocks.peekFirst().releasedAt - releasedBefore <= 0)) {
          freed.add(blocks.pollFirst());
          keptBytes -= entry.getKey();
        }
        if (blocks.isEmpty()) {
          it.remove();
        }
      }
      if (keptBytes > 0) {
        scheduleTrim();
      }
    }
    freed.forEach(block -> MemoryUtil.freeMemory(block.address));  // outside the lock: munmap can take a while
  }

  private record Block(long address, long releasedAt) {}

  private final class Recycled extends AllocationManager {
    private final long address;
    private final long size;

    Recycled(BufferAllocator accountingAllocator, long address, long size) {
      super(accountingAllocator);
      this.address = address;
      this.size = size;
    }

    @Override
    public long getSize() {
      return size;
    }

    @Override
    protected long memoryAddress() {
      return address;
    }

    @Override
    protected void release0() {
      give(address, size);
    }
  }
}
