package org.spillway.gpu.exec;

import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import jcuda.Pointer;
import org.spillway.gpu.cuda.CudaDevice;
import org.spillway.gpu.cuda.CudaException;
import org.spillway.gpu.cuda.CudaStream;
import org.spillway.gpu.memory.DeviceBuffer;

/**
 * Small device buffers that GPU pipeline runs borrow (program images, aggregate state, chunk tables) and
 * give back, and the streams they control a run on, so that a run allocates nothing once the process is warm. Buffers above {@link #MAX_POOLED_BYTES}
 * (large hash tables) are freed on release. Thread safe.
 */
final class GpuScratch {
  /** Smallest buffer handed out: program images and global aggregate states fit many times over. */
  static final long MIN_BYTES = 64L << 10;
  /** Largest buffer kept idle after use. */
  static final long MAX_POOLED_BYTES = 64L << 20;
  /** Idle buffers kept per device. */
  static final int MAX_IDLE = 32;

  private static final Map<CudaDevice, Deque<DeviceBuffer>> IDLE = new ConcurrentHashMap<>();
  private static final Map<CudaDevice, Deque<CudaStream>> STREAMS = new ConcurrentHashMap<>();

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

  /** Frees every idle buffer of {@code device}; returns how many. */
  static int trim(CudaDevice device) {
    Deque<DeviceBuffer> idle = IDLE.get(device);
    if (idle == null) {
      return 0;
    }
    List<DeviceBuffer> freeing = new ArrayList<>();
    synchronized (idle) {
      for (Iterator<DeviceBuffer> it = idle.iterator(); it.hasNext(); ) {
        freeing.add(it.next());
        it.remove();
      }
    }
    freeing.forEach(DeviceBuffer::close);
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

  /** Copies {@code bytes} bytes of a Java array into device memory (synchronously). */
  static void upload(DeviceBuffer target, long offset, Pointer from, long bytes, String what) {
    if (bytes > 0) {
      CudaException.check(cuMemcpyHtoD(target.pointer(offset), from, bytes), "cuMemcpyHtoD(" + what + ", " + bytes
          + " bytes)");
    }
  }
}
