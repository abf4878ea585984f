package org.spillway.gpu.pipeline.gpu;

import static jcuda.driver.JCudaDriver.cuMemcpyHtoDAsync;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.CudaEvent;
import org.spillway.gpu.device.CudaException;
import org.spillway.gpu.device.CudaStream;
import org.spillway.gpu.device.DeviceBuffer;
import org.spillway.gpu.device.DevicePointer;
import org.spillway.gpu.device.GpuMemoryException;
import org.spillway.gpu.device.HostPointer;

/**
 * Keeps hot host columns resident in GPU memory within a byte budget, evicting the least recently used, so
 * that repeated pipelines over them transfer nothing. An entry is one host buffer region (the data or
 * validity buffer of one column of one Arrow batch), keyed by the Arrow buffer object itself (by identity,
 * so that memory freed and reused by another buffer never matches a stale entry) and its address and
 * length; the cache assumes that Arrow data is not modified once loaded. Shared by concurrent pipelines:
 * each run opens a {@link Session}, which pins the entries it reads until it is closed, so that eviction
 * (by LRU order, within the capacity and the device allocator's budget) never frees memory under a running
 * kernel. A miss allocates the entry and the run fills it with one copy on its own stream. Thread safe;
 * clear and close free everything not pinned (pinned entries as soon as their run ends).
 * <p>An entry may also hold what a run made on the device from cached columns (a join table, a column widened):
 * its owner is then a {@link Derived} value, which names the regions it was made from and how, and which matches
 * an equal value (a later run's); the run fills it on the device ({@link Session#filledOnDevice}).
 */
public final class GpuColumnCache implements AutoCloseable {
  private final CudaDevice device;
  private final long capacityBytes;
  /** Entries in access order: the first is the least recently used. */
  private final LinkedHashMap<Key, Entry> entries = new LinkedHashMap<>(64, 0.75f, true);
  private long resident;
  /**
   * Bytes of the entries that some run pins (those in {@link #entries} with pins): what cannot be evicted now, kept
   * as entries are pinned and unpinned so that a miss need not walk every entry to learn it.
   */
  private long pinnedResident;
  private long hits;
  private long misses;
  private long evictions;
  private boolean closed;

  /** A cache on {@code device} holding at most {@code capacityBytes} of column data. */
  public GpuColumnCache(CudaDevice device, long capacityBytes) {
    if (capacityBytes < 0) {
      throw new IllegalArgumentException("GPU column cache capacity must not be negative, got " + capacityBytes);
    }
    this.device = device;
    this.capacityBytes = capacityBytes;
  }

  public CudaDevice device() {
    return device;
  }

  public long capacityBytes() {
    return capacityBytes;
  }

  /** Bytes of column data resident now (entries being filled included). */
  public synchronized long residentBytes() {
    return resident;
  }

  /** Bytes of the resident entries that a running pipeline pins (none once every run has ended). */
  public synchronized long pinnedBytes() {
    return pinnedResident;
  }

  /** Resident entries (column buffers of one batch each). */
  public synchronized int entryCount() {
    return entries.size();
  }

  /** Column buffers served from GPU memory since creation. */
  public synchronized long hits() {
    return hits;
  }

  /** Column buffers that had to cross the link since creation. */
  public synchronized long misses() {
    return misses;
  }

  /** Entries evicted to make room since creation. */
  public synchronized long evictions() {
    return evictions;
  }

  /** Evicts everything; entries a running pipeline reads are freed when it ends. */
  public void clear() {
    List<Entry> freeing = new ArrayList<>();
    synchronized (this) {
      for (Entry e : entries.values()) {
        resident -= e.bytes;
        e.doomed = true;
        if (e.pins == 0) {
          freeing.add(e);
        }
      }
      entries.clear();
      pinnedResident = 0;
    }
    free(freeing);
  }

  /** Clears the cache and caches nothing more. */
  @Override
  public void close() {
    synchronized (this) {
      closed = true;
    }
    clear();
  }

  /** A run's view of the cache; close it once the run's GPU work is done (its streams synchronized). */
  Session open() {
    return new Session();
  }

  /**
   * The owner of an entry made on the device from cached regions, compared by value: equal values are the same
   * device data. Its regions' buffers compare by identity ({@link Region}).
   */
  interface Derived {}

  /** A host buffer region of a {@link Derived} owner: its buffer (compared by identity), address and bytes. */
  record Region(Object buffer, long address, long bytes) {
    @Override public boolean equals(Object o) {
      return o instanceof Region r && r.buffer == buffer && r.address == address && r.bytes == bytes;
    }

    @Override public int hashCode() {
      return System.identityHashCode(buffer) * 31 + Long.hashCode(address * 17 + bytes);
    }
  }

  /**
   * A host buffer region: the buffer it lies in (an Arrow buffer, compared by identity), the address and the bytes;
   * or, for an entry made on the device, its {@link Derived} owner (compared by value).
   */
  private record Key(Object owner, long address, long bytes) {
    @Override public boolean equals(Object o) {
      return o instanceof Key k && (k.owner == owner || owner instanceof Derived && owner.equals(k.owner))
          && k.address == address && k.bytes == bytes;
    }

    @Override public int hashCode() {
      return (owner instanceof Derived ? owner.hashCode() : System.identityHashCode(owner)) * 31
          + Long.hashCode(address * 17 + bytes);
    }
  }

  /** One resident column buffer. */
  static final class Entry {
    private final Key key;
    private final long bytes;
    private final Session filler;
    private DeviceBuffer buffer;
    private CudaEvent filled;
    private boolean ready;
    /** The fill copy is known to be done: readers need not wait for it. */
    private volatile boolean complete;
    private int pins;
    private boolean doomed;

    private Entry(Key key, Session filler) {
      this.key = key;
      this.bytes = key.bytes();
      this.filler = filler;
    }

    /** Device address of the buffer's first byte. */
    long address() {
      return buffer.address();
    }
  }

  /** Evicts unpinned entries, least recently used first, until {@code bytes} more fit; false if they cannot. */
  private boolean makeRoom(long bytes, List<Entry> freeing) {
    if (bytes > capacityBytes) {
      return false;
    }
    if (pinnedResident + bytes > capacityBytes) {
      return false;  // even evicting every unpinned entry would not make room
    }
    for (Iterator<Entry> it = entries.values().iterator(); it.hasNext() && resident + bytes > capacityBytes; ) {
      Entry e = it.next();
      if (e.pins == 0) {
        it.remove();
        resident -= e.bytes;
        evictions++;
        e.doomed = true;
        freeing.add(e);
      }
    }
    return true;
  }

  /** Evicts every unpinned entry (to give the allocator's budget back); returns whether any was. */
  private boolean evictUnpinned(List<Entry> freeing) {
    for (Iterator<Entry> it = entries.values().iterator(); it.hasNext(); ) {
      Entry e = it.next();
      if (e.pins == 0) {
        it.remove();
        resident -= e.bytes;
        evictions++;
        e.doomed = true;
        freeing.add(e);
      }
    }
    return !freeing.isEmpty();
  }

  private static void free(List<Entry> freeing) {
    for (Entry e : freeing) {
      if (e.filled != null) {
        e.filled.synchronize();  // a fill copy of a failed run may still be in flight
        e.filled.close();
      }
      if (e.buffer != null) {
        e.buffer.close();
      }
    }
  }

  /** The cache as one run sees it: the entries it pinned and those it must fill. */
  final class Session implements AutoCloseable {
    private final List<Entry> pinned = new ArrayList<>();
    private boolean closedSession;
    /** Regions this run found ready, created (and fills), and could not cache; for the trace. */
    private int read;
    private int created;
    private int uncached;

    /**
     * The entry for a host buffer region: a ready one (read it after {@link #await}), or a new one that this
     * run must {@link #fill} before reading it ({@link #mustFill}); null when the region is not cached and
     * cannot be now (no room, or another run is filling it): stream it.
     */
    Entry acquire(Object owner, long address, long bytes) {
      Key key = new Key(owner, address, bytes);
      List<Entry> freeing = new ArrayList<>();
      Entry entry;
      synchronized (GpuColumnCache.this) {
        Entry found = entries.get(key);
        if (found != null && found.ready) {
          pinnedResident += found.pins == 0 ? found.bytes : 0;
          found.pins++;
          pinned.add(found);
          hits++;
          read++;
          return found;
        }
        misses++;
        if (closed || found != null || !makeRoom(bytes, freeing)) {
          entry = null;
        } else {
          entry = new Entry(key, this);
          entry.pins = 1;
          entries.put(key, entry);
          resident += bytes;
          pinnedResident += bytes;
        }
      }
      free(freeing);
      if (entry == null) {
        uncached++;
        return null;
      }
      created++;
      try {
        entry.buffer = allocate(bytes);
        entry.filled = device.newEvent(false);
      } catch (RuntimeException e) {
        abandon(entry);
        if (e instanceof GpuMemoryException) {
          return null;
        }
        throw e;
      }
      pinned.add(entry);
      return entry;
    }

    /** Device memory for an entry, evicting unpinned entries and idle pipeline buffers if the budget is short. */
    private DeviceBuffer allocate(long bytes) {
      try {
        return device.allocator().allocate(bytes, "GPU column cache entry");
      } catch (GpuMemoryException first) {
        List<Entry> freeing = new ArrayList<>();
        synchronized (GpuColumnCache.this) {
          evictUnpinned(freeing);
        }
        free(freeing);
        GpuColumnarPipeline.releaseIdleResources(device);
        return device.allocator().allocate(bytes, "GPU column cache entry");
      }
    }

    private void abandon(Entry entry) {
      List<Entry> freeing = new ArrayList<>();
      synchronized (GpuColumnCache.this) {
        if (entries.get(entry.key) == entry) {
          entries.remove(entry.key);
          resident -= entry.bytes;
          pinnedResident -= entry.pins > 0 ? entry.bytes : 0;
        }
        freeing.add(entry);
      }
      free(freeing);
    }

    /** Whether this run created the entry and must fill it. */
    boolean mustFill(Entry entry) {
      return entry.filler == this && !entry.ready;
    }

    /** Copies the host region into the entry on {@code stream}; later readers wait for that copy. */
    void fill(Entry entry, CudaStream stream) {
      CudaException.check(cuMemcpyHtoDAsync(new DevicePointer(entry.address()), new HostPointer(entry.key.address()),
          entry.bytes, stream.handle()), "cuMemcpyHtoDAsync(GPU column cache fill, " + entry.bytes + " bytes)");
      entry.filled.record(stream);
      synchronized (GpuColumnCache.this) {
        entry.ready = true;
      }
    }

    /**
     * Marks an entry this run filled with work of its own on {@code stream} (kernels, device copies) as filled once
     * that work is done; later readers wait for it.
     */
    void filledOnDevice(Entry entry, CudaStream stream) {
      if (!mustFill(entry)) {
        throw new IllegalStateException("an entry filled by a run that did not create it");
      }
      entry.filled.record(stream);
      synchronized (GpuColumnCache.this) {
        entry.ready = true;
      }
    }

    /** Makes {@code stream} wait for the entry's fill, unless it is known to be done. */
    void await(Entry entry, CudaStream stream) {
      if (!entry.complete) {
        stream.waitFor(entry.filled);
      }
    }

    /**
     * Unpins the run's entries; those it filled are complete now (the run waited for its streams). Entries it
     * created but never filled (after a failure) are dropped.
     */
    @Override
    public void close() {
      if (closedSession) {
        return;
      }
      closedSession = true;
      List<Entry> freeing = new ArrayList<>();
      List<Entry> filledHere = new ArrayList<>();
      synchronized (GpuColumnCache.this) {
        for (Entry e : pinned) {
          if (e.filler == this) {
            if (e.ready) {
              filledHere.add(e);
            } else if (entries.get(e.key) == e) {
              entries.remove(e.key);
              resident -= e.bytes;
              pinnedResident -= e.bytes;  // pinned by this run
              e.doomed = true;
            } else {
              e.doomed = true;
            }
          }
        }
      }
      for (Entry e : filledHere) {
        e.filled.synchronize();
        e.complete = true;
      }
      synchronized (GpuColumnCache.this) {
        for (Entry e : pinned) {
          if (--e.pins == 0 && e.doomed) {
            freeing.add(e);
          } else if (e.pins == 0 && entries.get(e.key) == e) {
            pinnedResident -= e.bytes;
          }
        }
      }
      pinned.clear();
      free(freeing);
      if (Boolean.getBoolean("spillway.trace") && created + uncached > 0) {
        // a steady run reads everything from the cache: regions created or left out again and again are churn
        System.err.printf("[spillway] gpu column cache: %d regions read from it, %d created, %d not cached; %d entries,"
            + " %.2f GB resident%n", read, created, uncached, entryCount(), residentBytes() / 1e9);
      }
    }
  }
}
