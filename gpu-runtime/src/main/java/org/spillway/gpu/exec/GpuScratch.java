package org.spillway.gpu.exec;

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
import jcuda.Pointer;
import jcuda.driver.CUstream;
import org.spillway.gpu.cuda.CudaDevice;
import org.spillway.gpu.cuda.CudaEvent;
import org.spillway.gpu.cuda.CudaException;
import org.spillway.gpu.cuda.CudaStream;
import org.spillway.gpu.memory.DeviceBuffer;
import org.spillway.gpu.memory.HostBuffer;

/**
 * Small device buffers that GPU pipeline runs borrow (program images, aggregate state, chunk tables) and
 * give back, the pinned host buffers that selected rows come back into, and the streams and events they
 * control a run with, so that a run allocates nothing once the process is warm. Buffers above
 * {@link #MAX_POOLED_BYTES} (large hash tables) are freed on release, and idle pinned memory is capped at
 * {@link #MAX_IDLE_HOST_BYTES}. Thread safe.
 */
final class GpuScratch {
  /** Smallest buffer handed out: program images and global aggregate states fit many times over. */
  static final long MIN_BYTES = 64L << 10;
  /** Largest buffer kept idle after use. */
  static final long MAX_POOLED_BYTES = 64L << 20;
  /** Idle buffers kept per device. */
  static final int MAX_IDLE = 32;

  /** Pinned bytes kept idle per device (output buffers of pipelines that return rows). */
  static final long MAX_IDLE_HOST_BYTES = 512L << 20;

  /** The legacy default stream (a null handle), on which synchronous copies run. */
  private static final CUstream LEGACY_STREAM = new CUstream();

  private static final Map<CudaDevice, Deque<DeviceBuffer>> IDLE = new ConcurrentHashMap<>();
  private static final Map<CudaDevice, Deque<HostBuffer>> IDLE_HOST = new ConcurrentHashMap<>();
  private static final Map<CudaDevice, Deque<CudaStream>> STREAMS = new ConcurrentHashMap<>();
  private static final Map<CudaDevice, Deque<CudaEvent>> EVENTS = new ConcurrentHashMap<>();

  private GpuScratch() {}

  /** A buffer of at least {@code bytes} bytes: the smallest idle one that fits, else a new one. */
  static DeviceBuffer acquire(CudaDevice device, long bytes) {
    Deque<DeviceBuffer> idle = IDLE.computeIfAbsent(device, d -> new ArrayDeque<>());
    synchronized (idle) {
      DeviceBuffer best = null;
      for (DeviceBuffer b : idle) {
        if (b.bytes() >= bytes && (best == null || b.bytes() < best.bytes())) {
          best = b;
        }
      }
      if (best != null) {
        idle.remove(best);
        return best;
      }
    }
    long size = Math.max(MIN_BYTES, Long.highestOneBit(bytes - 1) << 1);
    return device.allocator().allocate(size, "GPU pipeline scratch (" + size + " bytes)");
  }

  /** Gives a buffer back; large ones and those beyond the idle limit are freed. */
  static void release(CudaDevice device, DeviceBuffer buffer) {
    if (buffer.bytes() <= MAX_POOLED_BYTES) {
      Deque<DeviceBuffer> idle = IDLE.computeIfAbsent(device, d -> new ArrayDeque<>());
      synchronized (idle) {
        if (idle.size() < MAX_IDLE) {
          idle.push(buffer);
          return;
        }
      }
    }
    buffer.close();
  }

  /**
   * Pinned, mapped host memory of at least {@code bytes} bytes: the smallest idle buffer that fits, else a new
   * one (rounded up to 64 KiB).
   */
  static HostBuffer acquireHost(CudaDevice device, long bytes) {
    Deque<HostBuffer> idle = IDLE_HOST.computeIfAbsent(device, d -> new ArrayDeque<>());
    synchronized (idle) {
      HostBuffer best = null;
      for (HostBuffer b : idle) {
        if (b.bytes() >= bytes && (best == null || b.bytes() < best.bytes())) {
          best = b;
        }
      }
      if (best != null) {
        idle.remove(best);
        return best;
      }
    }
    return device.pinnedAllocator().allocate((Math.max(bytes, 1) + MIN_BYTES - 1) / MIN_BYTES * MIN_BYTES);
  }

  /** Gives back pinned memory nothing reads or writes any more; beyond the idle cap it is freed. */
  static void release(CudaDevice device, HostBuffer buffer) {
    Deque<HostBuffer> idle = IDLE_HOST.computeIfAbsent(device, d -> new ArrayDeque<>());
    synchronized (idle) {
      long held = idle.stream().mapToLong(HostBuffer::bytes).sum();
      if (idle.size() < MAX_IDLE && held + buffer.bytes() <= MAX_IDLE_HOST_BYTES) {
        idle.push(buffer);
        return;
      }
    }
    buffer.close();
  }

  /** Frees every idle device and pinned buffer of {@code device}; returns how many. */
  static int trim(CudaDevice device) {
    return closeAll(IDLE.get(device), DeviceBuffer::close) + closeAll(IDLE_HOST.get(device), HostBuffer::close);
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

  /** An idle stream of {@code device}, or a new one. */
  static CudaStream stream(CudaDevice device) {
    Deque<CudaStream> idle = STREAMS.computeIfAbsent(device, d -> new ArrayDeque<>());
    synchronized (idle) {
      if (!idle.isEmpty()) {
        return idle.pop();
      }
    }
    return device.newStream();
  }

  /** Gives back a stream with no work pending. */
  static void release(CudaDevice device, CudaStream stream) {
    Deque<CudaStream> idle = STREAMS.computeIfAbsent(device, d -> new ArrayDeque<>());
    synchronized (idle) {
      if (idle.size() < MAX_IDLE) {
        idle.push(stream);
        return;
      }
    }
    stream.close();
  }

  /** An idle event (timing disabled) of {@code device}, or a new one. */
  static CudaEvent event(CudaDevice device) {
    Deque<CudaEvent> idle = EVENTS.computeIfAbsent(device, d -> new ArrayDeque<>());
    synchronized (idle) {
      if (!idle.isEmpty()) {
        return idle.pop();
      }
    }
    return device.newEvent(false);
  }

  /** Gives back an event that no one waits for. */
  static void release(CudaDevice device, CudaEvent event) {
    Deque<CudaEvent> idle = EVENTS.computeIfAbsent(device, d -> new ArrayDeque<>());
    synchronized (idle) {
      if (idle.size() < MAX_IDLE) {
        idle.push(event);
        return;
      }
    }
    event.close();
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
