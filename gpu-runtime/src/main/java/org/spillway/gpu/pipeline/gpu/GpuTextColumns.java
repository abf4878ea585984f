package org.spillway.gpu.pipeline.gpu;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.HostMemoryKind;
import org.spillway.gpu.transfer.TransferMethod;

/**
 * The plain-text columns of a batch as the kernels read them: in place, whatever the transfer method of the
 * fixed-width columns, at device-visible addresses of the batch's offsets and UTF-8 bytes. Streaming them would
 * not fit a chunk's layout (a row's end is the next row's offset, and the bytes of a chunk's rows vary in
 * length), and LIKE reads each byte at most a few times. Pinned host memory is read through its mapping
 * (zero-copy), managed and device memory at their own addresses, pageable memory only over a coherent link;
 * elsewhere the run goes to the CPU backend ({@link NotDeviceVisible}).
 */
final class GpuTextColumns {
  private GpuTextColumns() {}

  /** A text column the GPU cannot read where it lies: the CPU backend runs the pipeline, and says why. */
  static final class NotDeviceVisible extends RuntimeException {
    NotDeviceVisible(String message) {
      super(message, null, false, false);
    }
  }

  /** The in-place text column of the first {@code rows} rows of {@code vector} (a VarChar column). */
  static GpuBatchStreamer.TextColumn of(CudaDevice device, TransferMethod method, FieldVector vector, int rows) {
    if (!(vector instanceof VarCharVector text)) {
      throw new IllegalArgumentException("column " + vector.getField() + " is not a VarChar vector, as a plain-text"
          + " input column of the GPU pipeline must be");
    }
    long offsets = visible(device, method, text.getOffsetBuffer(), vector);
    // no bytes at all (only empty strings or NULLs): nothing is read there
    long bytes = text.getDataBuffer().capacity() == 0 ? 0 : visible(device, method, text.getDataBuffer(), vector);
    long spanned = 4L * (rows + 1) + text.getOffsetBuffer().getInt(4L * rows) - text.getOffsetBuffer().getInt(0);
    return new GpuBatchStreamer.TextColumn(offsets, bytes, spanned, new GpuBatchStreamer.TextSource(
        text.getOffsetBuffer(), bytes == 0 ? null : text.getDataBuffer(), rows), false);
  }

  private static long visible(CudaDevice device, TransferMethod method, ArrowBuf buffer, FieldVector vector) {
    long address = buffer.memoryAddress();
    HostMemoryKind kind = HostMemoryKind.of(device, address);
    return switch (kind) {
      case PINNED -> HostMemoryKind.mappedDeviceAddress(device, address);
      case MANAGED, DEVICE -> address;
      case PAGEABLE -> {
        if (method == TransferMethod.COHERENCE) {
          yield address;
        }
        throw new NotDeviceVisible("the plain text of " + vector.getName() + " lies in pageable host memory, which"
            + " the GPU reads in place only over a coherent link (the GPU's LIKE reads text where it lies; pinned"
            + " memory would serve)");
      }
    };
  }
}
