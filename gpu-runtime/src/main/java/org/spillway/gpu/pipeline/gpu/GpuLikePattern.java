package org.spillway.gpu.pipeline.gpu;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import org.spillway.gpu.expr.Expr;
import org.spillway.gpu.expr.SqlLikePatterns;

/**
 * A LIKE pattern as the GPU's LIKE_TEXT matches it (like_pieces in pipeline_chunks.cuh): literal pieces between
 * {@code %}s, the first anchored at the start and the last at the end (empty where the pattern starts or ends with
 * {@code %}). Searching the pieces' UTF-8 bytes in order is exactly what the CPU backend's byte matcher does for
 * such patterns; {@code _} (one character, not a line terminator) and escapes need character-wise matching, so
 * those patterns stay on the CPU.
 */
final class GpuLikePattern {
  private GpuLikePattern() {}

  /**
   * The LIKE_TEXT constants of the pattern: piece count n, the n pieces' byte lengths, then their bytes back to
   * back, packed little-endian 8 to a word (the kernel reads them as bytes). Throws {@link GpuProgram.Unsupported}
   * for a pattern the GPU does not match.
   */
  static long[] constants(Expr.Like like) {
    String[] pieces = SqlLikePatterns.pieces(like.pattern(), like.escape());
    if (pieces == null) {
      throw new GpuProgram.Unsupported(like + ": a pattern with '_' or an escape (the GPU matches literal pieces"
          + " between '%'s)");
    }
    // without an escape the CPU's byte matcher takes NUL as one; a lone surrogate has no UTF-8 form
    if (like.bytes() == null || like.pattern().indexOf('\0') >= 0) {
      throw new GpuProgram.Unsupported(like + ": a pattern with a NUL character or a lone UTF-16 surrogate");
    }
    byte[][] bytes = new byte[pieces.length][];
    int total = 0;
    for (int i = 0; i < pieces.length; i++) {
      bytes[i] = pieces[i].getBytes(StandardCharsets.UTF_8);
      total += bytes[i].length;
    }
    int words = (total + 7) / 8;
    ByteBuffer packed = ByteBuffer.allocate(words * 8).order(ByteOrder.LITTLE_ENDIAN);
    for (byte[] piece : bytes) {
      packed.put(piece);
    }
    long[] out = new long[1 + pieces.length + words];
    out[0] = pieces.length;
    for (int i = 0; i < pieces.length; i++) {
      out[1 + i] = bytes[i].length;
    }
    for (int w = 0; w < words; w++) {
      out[1 + pieces.length + w] = packed.getLong(w * 8);
    }
    return out;
  }
}
