package org.spillway.gpu.transfer;

import org.spillway.gpu.device.CudaStream;

/**
 * The GPU side of a pipeline: enqueues the work for one chunk on the given stream (typically one kernel
 * launch). It must not block; the chunk's memory may be reused once the stream passes the enqueued work.
 */
@FunctionalInterface
public interface ChunkConsumer {
  void consume(DeviceChunk chunk, CudaStream stream);
}
