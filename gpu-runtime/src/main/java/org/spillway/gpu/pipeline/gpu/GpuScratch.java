package org.spillway.gpu.pipeline.gpu;

import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;
import static jcuda.driver.JCudaDriver.cuStreamSynchronize;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.ToLongFunction;
import jcuda.Pointer;
import jcuda.driver.CUstream;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.CudaEvent;
import org.spillway.gpu.device.CudaException;
import org.spillway.gpu.device.CudaStream;
import org.spillway.gpu.device.DeviceBuffer;
import org.spillway.gpu.device.HostBuffer;

/**
 * Device buffers that GPU pipeline runs borrow (program images, aggregate state, chunk tables) and
 * give back, the pinned host buffers that selected rows come back into, and the streams and events they
 * control a run with, so that a run allocates nothing once the process is warm. Buffers above
 * {@link #MAX_POOLED_BYTES} are freed on release, and idle memory is capped at {@link #MAX_IDLE_DEVICE_BYTES}
 * (device) and {@link #MAX_IDLE_HOST_BYTES} (pinned), the items idle longest freed first. Thread safe.
 */
final class GpuScratch {
  /** Smallest buffer handed out: program images and global aggregate states fit many times over. */
  static final long MIN_BYTES = 64L << 10;
  /**
   * Largest buffer kept idle after use: a grouped aggregation's table sized from the planner's estimate reaches a
   * few hundred MB, and allocating and freeing it in every run costs more than the run's kernels.
   */
  static final long MAX_POOLED_BYTES = 1L << 30;
  /** Device bytes kept idle per device, and at most an eighth of its memory budget. */
  static final long MAX_IDLE_DEVICE_BYTES = 2L << 30;
  /** Idle buffers kept per device. */
  static final int MAX_IDLE = 32;

  /**
   * Pinned bytes kept idle per device: output buffers of pipelines that return rows, and join key staging
   * ({@link PinnedScratch}: 480 MB for TPC-H Q5's lineitem keys at SF 10).
   */
  static final long MAX_IDLE_HOST_BYTES = 1L << 30;

  /** The legacy default stream (a null handle), on which synchronous copies run. */
  private static final CUstream LEGACY_STREAM = new CUstream();

  private static final Map<CudaDevice, Deque<DeviceBuffer>> IDLE = new ConcurrentHashMap<>();
  private static final Map<CudaDevice, Deque<HostBuffer>> IDLE_HOST = new ConcurrentHashMap<>();
  private static final Map<CudaDevice, Deque<CudaStream>> STREAMS = new ConcurrentHashMap<>();
  private static final Map<CudaDevice, Deque<CudaEvent>> EVENTS = new ConcurrentHashMap<>();

  private GpuScratch() {}

  /** A buffer of at least {@code bytes} bytes: the smallest idle one that fits, else a new one. */
  static DeviceBuffer acquire(CudaDevice device, long bytes) {
    DeviceBuffer idle = takeSmallest(pool(IDLE, device), bytes, DeviceBuffer::bytes);
    if (idle != null) {
      return idle;
    }
    long size = Math.max(MIN_BYTES, Long.highestOneBit(bytes - 1) << 1);
    return device.allocator().allocate(size, "GPU pipeline scratch (" + size + " bytes)");
  }

  /** Gives a buffer back; large ones are freed, and the longest idle ones beyond the idle limit. */
  static void release(CudaDevice device, DeviceBuffer buffer) {
    long cap = Math.min(MAX_IDLE_DEVICE_BYTES, device.allocator().budget() / 8);
    if (buffer.bytes() > MAX_POOLED_BYTES) {
      buffer.close();
      return;
    }
    keep(pool(IDLE, device), buffer, DeviceBuffer::bytes, cap).forEach(DeviceBuffer::close);
  }

  /**
   * Pinned, mapped host memory of at least {@code bytes} bytes: the smallest idle buffer that fits, else a new
   * one (rounded up to 64 KiB).
   */
  static HostBuffer acquireHost(CudaDevice device, long bytes) {
    HostBuffer idle = takeSmallest(pool(IDLE_HOST, device), bytes, HostBuffer::bytes);
    return idle != null ? idle
        : device.pinnedAllocator().allocate((Math.max(bytes, 1) + MIN_BYTES - 1) / MIN_BYTES * MIN_BYTES);
  }

  /** Gives back pinned memory nothing reads or writes any more; the longest idle beyond the idle cap is freed. */
  static void release(CudaDevice device, HostBuffer buffer) {
    keep(pool(IDLE_HOST, device), buffer, HostBuffer::bytes, MAX_IDLE_HOST_BYTES).forEach(HostBuffer::close);
  }

  /** Frees every idle device and pinned buffer of {@code device}; returns how many. */
  static int trim(CudaDevice device) {
    return closeAll(IDLE.get(device), DeviceBuffer::close) + closeAll(IDLE_HOST.get(device), HostBuffer::close);
  }

  /** An idle stream of {@code device}, or a new one. */
  static CudaStream stream(CudaDevice device) {
    CudaStream idle = take(pool(STREAMS, device));
    return idle != null ? idle : device.newStream();
  }

  /** Gives back a stream with no work pending. */
  static void release(CudaDevice device, CudaStream stream) {
    keep(pool(STREAMS, device), stream, s -> 0, Long.MAX_VALUE).forEach(CudaStream::close);
  }

  /** An idle event (timing disabled) of {@code device}, or a new one. */
  static CudaEvent event(CudaDevice device) {
    CudaEvent idle = take(pool(EVENTS, device));
    return idle != null ? idle : device.newEvent(false);
  }

  /** Gives back an event that no one waits for. */
  static void release(CudaDevice device, CudaEvent event) {
    keep(pool(EVENTS, device), event, e -> 0, Long.MAX_VALUE).forEach(CudaEvent::close);
  }

  private static <T> Deque<T> pool(Map<CudaDevice, Deque<T>> pools, CudaDevice device) {
    return pools.computeIfAbsent(device, d -> new ArrayDeque<>());
  }

  /** The most recently idle item, or null. */
  private static <T> T take(Deque<T> idle) {
    synchronized (idle) {
      return idle.isEmpty() ? null : idle.pop();
    }
  }

  /** The smallest idle item of at least {@code bytes} bytes, taken out of the pool; null when none fits. */
  private static <T> T takeSmallest(Deque<T> idle, long bytes, ToLongFunction<T> size) {
    synchronized (idle) {
      T best = null;
      for (T item : idle) {
        if (size.applyAsLong(item) >= bytes && (best == null || size.applyAsLong(item) < size.applyAsLong(best))) {
          best = item;
        }
      }
      if (best != null) {
        idle.remove(best);
      }
      return best;
    }
  }

  /**
   * Keeps {@code item} idle as the most recently used, and takes out the items idle longest while the pool holds more
   * than {@link #MAX_IDLE} items or more than {@code capBytes} bytes; returns those (an item over the cap alone: itself),
   * for the caller to free outside the lock. Refusing the newest instead would free and pin anew, in every run of a
   * long-lived process, the buffers each run uses (join key staging, output buffers) once other sizes filled the pool.
   */
  static <T> List<T> keep(Deque<T> idle, T item, ToLongFunction<T> bytes, long capBytes) {
    List<T> evicted = new ArrayList<>();
    if (bytes.applyAsLong(item) > capBytes) {
      evicted.add(item);
      return evicted;
    }
    synchronized (idle) {
      idle.push(item);
      long total = 0;
      for (T kept : idle) {
        total += bytes.applyAsLong(kept);
      }
      while (idle.size() > MAX_IDLE || total > capBytes) {
        T oldest = idle.pollLast();
        total -= bytes.applyAsLong(oldest);
        evicted.add(oldest);
      }
    }
    return evicted;
  }

  private static <T> int closeAll(Deque<T> idle, Consumer<T> close) {
    if (idle == null) {
      return 0;
    }
    List<T> freeing = new ArrayList<>();
    synchronized (idle) {
      for (Iterator<T> it = idle.iterator(); it.hasNext(); ) {
        freeing.add(it.next());
        it.remove();
      }
    }
    freeing.forEach(close);
    return freeing.size();
  }

  /**
   * Copies {@code bytes} bytes of a Java array into device memory and waits until they arrived: cuMemcpyHtoD
   * from pageable memory may return once the bytes are staged, before its DMA on the legacy stream ends, and
   * kernels on non-blocking streams do not order after that stream.
   */
  static void upload(DeviceBuffer target, long offset, Pointer from, long bytes, String what) {
    if (bytes > 0) {
      CudaException.check(cuMemcpyHtoD(target.pointer(offset), from, bytes), "cuMemcpyHtoD(" + what + ", " + bytes
          + " bytes)");
      CudaException.check(cuStreamSynchronize(LEGACY_STREAM), "cuStreamSynchronize(legacy stream, " + what + ")");
    }
  }
}
