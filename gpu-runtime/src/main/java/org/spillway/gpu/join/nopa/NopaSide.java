package org.spillway.gpu.join.nopa;

import java.util.ArrayList;
import java.util.List;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.CudaStream;
import org.spillway.gpu.join.HostJoinInput;
import org.spillway.gpu.transfer.DeviceChunk;
import org.spillway.gpu.transfer.HostColumn;

/**
 * One relation of a NOPA pass as it streams to the GPU: the columns that go over the link (the keys, and the
 * payloads only where the pass reads them), what each row carries (its row number, its payload or nothing) and
 * its NULLs; it turns a pipeline chunk into the kernels' leading arguments.
 */
final class NopaSide implements AutoCloseable {
  private final HostJoinInput input;
  private final List<HostColumn> columns = new ArrayList<>();
  private final int valueMode;
  private final int slots;
  private final ValidityChunks validity;

  /** {@code valueMode}: one of NopaKernels' VALUE_ constants; payloads are streamed only for VALUE_I32/I64. */
  NopaSide(CudaDevice device, HostJoinInput input, int valueMode, int slots) {
    this.input = input;
    this.valueMode = valueMode;
    this.slots = slots;
    columns.add(input.keys());
    if (valueMode == NopaKernels.VALUE_I32 || valueMode == NopaKernels.VALUE_I64) {
      columns.add(input.payloads());
    }
    this.validity = new ValidityChunks(device, input.validityAddress(), slots);
  }

  /** The value mode that carries {@code input}'s payload into the join. */
  static int payloadMode(HostJoinInput input) {
    return NopaKernels.payloadMode(input.payloads());
  }

  List<HostColumn> columns() {
    return columns;
  }

  long rows() {
    return input.rows();
  }

  /** Bytes one pass over rows [first, first + rows) moves to the GPU: its columns and its validity bits. */
  long bytesPerPass(long rows) {
    long bytes = validity.present() ? ValidityChunks.bytesFor(rows) : 0;
    for (HostColumn c : columns) {
      bytes += rows * c.type().width();
    }
    return bytes;
  }

  /**
   * The chunk parameters every NOPA kernel starts with: keys, validity, payloads, value mode, first row, rows.
   * The pipeline hands chunk {@code i} to slot {@code i % slots}, whose previous chunk is consumed by then.
   */
  List<Object> chunkArgs(DeviceChunk chunk, CudaStream stream) {
    int slot = (int) (chunk.index() % slots);
    long[] addresses = chunk.columnAddresses();
    List<Object> args = new ArrayList<>(16);
    args.add(addresses[0]);
    args.add(validity.address(chunk, stream, slot));
    args.add(addresses.length > 1 ? addresses[1] : 0L);
    args.add(valueMode);
    args.add(chunk.firstRow());
    args.add(chunk.rowCount());
    return args;
  }

  @Override
  public void close() {
    validity.close();
  }
}
