package org.spillway.gpu.transfer;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.spillway.gpu.device.CudaDevice;

/**
 * Idle {@link TransferPipeline}s of one device, kept between runs so that a query does not pay for creating
 * streams, events and chunk buffers (cuMemAlloc of every slot) each time. Pipelines are handed out by method,
 * slot count and staging threads (the chunk size is chosen per stream call); a pipeline is used by one
 * thread at a time and given back when the run is over. Thread safe. Idle pipelines hold device memory
 * against the budget: {@link #trim()} frees them (the column cache does when it runs out of budget).
 */
public final class TransferPipelinePool {
  /** Idle pipelines kept per key; more are closed on release. */
  static final int MAX_IDLE_PER_KEY = 8;

  private static final Map<CudaDevice, TransferPipelinePool> POOLS = new ConcurrentHashMap<>();

  private record Key(TransferMethod method, int slots, int stagingThreads) {
    static Key of(TransferMethod method, TransferOptions options) {
      return new Key(method, options.slots(), options.stagingThreads());
    }
  }

  private final CudaDevice device;
  private final Map<Key, Deque<TransferPipeline>> idle = new HashMap<>();
  private long created;

  private TransferPipelinePool(CudaDevice device) {
    this.device = device;
  }

  /** The pool of {@code device}. */
  public static TransferPipelinePool of(CudaDevice device) {
    return POOLS.computeIfAbsent(device, TransferPipelinePool::new);
  }

  /** An idle pipeline for the method and options (slots, staging threads), or a new one. */
  public TransferPipeline acquire(TransferMethod method, TransferOptions options) {
    synchronized (this) {
      Deque<TransferPipeline> free = idle.get(Key.of(method, options));
      if (free != null && !free.isEmpty()) {
        return free.pop();
      }
      created++;
    }
    return new TransferPipeline(device, method, options);
  }

  /** Takes back a pipeline after a successful run; beyond the idle limit it is closed. */
  public void release(TransferPipeline pipeline) {
    synchronized (this) {
      Deque<TransferPipeline> free = idle.computeIfAbsent(Key.of(pipeline.method(), pipeline.options()),
          k -> new ArrayDeque<>());
      if (free.size() < MAX_IDLE_PER_KEY) {
        free.push(pipeline);
        return;
      }
    }
    pipeline.close();
  }

  /** Closes every idle pipeline, freeing its device and pinned buffers; returns how many were closed. */
  public int trim() {
    List<TransferPipeline> closing = new ArrayList<>();
    synchronized (this) {
      idle.values().forEach(closing::addAll);
      idle.clear();
    }
    RuntimeException failure = null;
    for (TransferPipeline p : closing) {
      try {
        p.close();
      } catch (RuntimeException e) {
        failure = failure == null ? e : failure;
      }
    }
    if (failure != null) {
      throw failure;
    }
    return closing.size();
  }

  /** Idle pipelines now. */
  public synchronized int idleCount() {
    return idle.values().stream().mapToInt(Deque::size).sum();
  }

  /** Pipelines created since the pool was made (a run that found an idle one created none). */
  public synchronized long createdCount() {
    return created;
  }
}
