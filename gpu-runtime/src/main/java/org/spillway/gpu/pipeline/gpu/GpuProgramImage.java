package org.spillway.gpu.pipeline.gpu;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import jcuda.Pointer;
import org.spillway.gpu.device.DeviceBuffer;

/**
 * A {@link GpuProgram} as the columnar_pipeline kernels read it from device memory: instructions (int4,
 * 16-byte aligned), constants, (kind, register) pairs of the aggregate calls, (register, bits, NULL flag
 * bit) triples of the group keys and, for the rows kernel, the output columns' words of a
 * {@link GpuRowsLayout}, packed into one upload; {@link #argument} is the ProgramArg passed by value.
 */
final class GpuProgramImage {
  private final GpuProgram program;
  private final byte[] bytes;
  private final int constantsAt;
  private final int callsAt;
  private final int keysAt;
  private final int outputsAt;

  /** The image of {@code program} with the given NULL flag bits of its keys (-1: the key is never NULL). */
  GpuProgramImage(GpuProgram program, int[] keyNullBits) {
    this(program, keyNullBits, new long[0]);
  }

  /** As above, followed by {@code outputWords} (the rows kernel's output columns, four words each). */
  GpuProgramImage(GpuProgram program, int[] keyNullBits, long[] outputWords) {
    this.program = program;
    constantsAt = align(program.code.length * 4);
    callsAt = align(constantsAt + program.constants.length * 8);
    keysAt = align(callsAt + program.calls.length * 4);
    outputsAt = align(keysAt + keyNullBits.length * 12);
    int end = align(outputsAt + outputWords.length * 8);
    ByteBuffer b = ByteBuffer.allocate(Math.max(16, end)).order(ByteOrder.LITTLE_ENDIAN);
    for (int i = 0; i < program.code.length; i++) {
      b.putInt(i * 4, program.code[i]);
    }
    for (int i = 0; i < program.constants.length; i++) {
      b.putLong(constantsAt + i * 8, program.constants[i]);
    }
    for (int i = 0; i < program.calls.length; i++) {
      b.putInt(callsAt + i * 4, program.calls[i]);
    }
    for (int k = 0; k < keyNullBits.length; k++) {
      b.putInt(keysAt + k * 12, program.keys[2 * k]);
      b.putInt(keysAt + k * 12 + 4, program.keys[2 * k + 1]);
      b.putInt(keysAt + k * 12 + 8, keyNullBits[k]);
    }
    for (int i = 0; i < outputWords.length; i++) {
      b.putLong(outputsAt + i * 8, outputWords[i]);
    }
    this.bytes = b.array();
  }

  private static int align(int offset) {
    return (offset + 15) / 16 * 16;
  }

  int bytes() {
    return bytes.length;
  }

  /** Copies the image to the start of {@code target}. */
  void upload(DeviceBuffer target) {
    GpuScratch.upload(target, 0, Pointer.to(bytes), bytes.length, "GPU pipeline program");
  }

  /** Offset of the aggregate calls' pairs, which columnar_pipeline_init reads too. */
  int callsOffset() {
    return callsAt;
  }

  /** Offset of the output columns' words, which columnar_pipeline_rows reads. */
  int outputsOffset() {
    return outputsAt;
  }

  /**
   * The ProgramArg words of columnar_pipeline.cu for the image uploaded at {@code base}, probing {@code joins}
   * (null for a program without probes).
   */
  long[] argument(long base, boolean branching, long trackedCalls, long capacity, GpuJoinTables joins) {
    return new long[] {base, program.length(), base + constantsAt, program.columns.length, program.wideMask(),
        branching ? 1 : 0, base + callsAt, program.calls.length / 2, trackedCalls, base + keysAt,
        program.keys.length / 2, capacity, joins == null ? 0 : joins.joinsAddress(),
        joins == null ? 0 : joins.columnsAddress()};
  }
}
