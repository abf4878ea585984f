package org.spillway.gpu.join;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;

/**
 * One side of an equi-join: a key column, an optional payload column and an optional validity bitmap
 * (Arrow layout: bit {@code i} of word {@code i >>> 6} set means row {@code i} is valid; a cleared bit is a
 * NULL key, which never matches).
 */
public final class JoinInput {
  private final long[] keys;
  private final long[] payloads;
  private final long[] validity;

  private JoinInput(long[] keys, long[] payloads, long[] validity) {
    if (keys == null) {
      throw new IllegalArgumentException("join input needs a key column, got null");
    }
    if (payloads != null && payloads.length != keys.length) {
      throw new IllegalArgumentException("payload column has " + payloads.length + " rows but key column has "
          + keys.length);
    }
    if (validity != null && validity.length < (keys.length + 63) / 64) {
      throw new IllegalArgumentException("validity bitmap has " + validity.length + " words; " + keys.length
          + " rows need " + (keys.length + 63) / 64);
    }
    this.keys = keys;
    this.payloads = payloads;
    this.validity = validity;
  }

  /** Keys and payloads without NULLs; the arrays are used as they are, not copied. */
  public static JoinInput of(long[] keys, long[] payloads) {
    return new JoinInput(keys, payloads, null);
  }

  /** Keys only (for materialized or existence joins); the array is used as it is. */
  public static JoinInput keysOnly(long[] keys) {
    return new JoinInput(keys, null, null);
  }

  /** Keys, payloads and an Arrow-layout validity bitmap ({@code null} means no NULLs). */
  public static JoinInput withValidity(long[] keys, long[] payloads, long[] validity) {
    return new JoinInput(keys, payloads, validity);
  }

  /** 4-byte keys and payloads, widened to 8 bytes (a copy). */
  public static JoinInput ofInts(int[] keys, int[] payloads) {
    long[] wideKeys = new long[keys.length];
    long[] widePayloads = payloads == null ? null : new long[payloads.length];
    for (int i = 0; i < keys.length; i++) {
      wideKeys[i] = keys[i];
    }
    for (int i = 0; widePayloads != null && i < widePayloads.length; i++) {
      widePayloads[i] = payloads[i];
    }
    return new JoinInput(wideKeys, widePayloads, null);
  }

  /**
   * Copies Arrow BIGINT or INT key and payload vectors (payloads may be {@code null}); NULL keys keep their
   * validity, a NULL payload reads as 0.
   */
  public static JoinInput fromArrow(BaseFixedWidthVector keys, BaseFixedWidthVector payloads) {
    int n = keys.getValueCount();
    if (payloads != null && payloads.getValueCount() != n) {
      throw new IllegalArgumentException("payload vector " + payloads.getName() + " has " + payloads.getValueCount()
          + " values but key vector " + keys.getName() + " has " + n);
    }
    long[] validity = keys.getNullCount() == 0 ? null : copyValidity(keys.getValidityBuffer(), n);
    return new JoinInput(copyValues(keys, n), payloads == null ? null : copyValues(payloads, n), validity);
  }

  private static long[] copyValues(BaseFixedWidthVector vector, int n) {
    ArrowBuf data = vector.getDataBuffer();
    long[] out = new long[n];
    if (vector instanceof BigIntVector) {
      for (int i = 0; i < n; i++) {
        out[i] = data.getLong((long) i * Long.BYTES);
      }
    } else if (vector instanceof IntVector) {
      for (int i = 0; i < n; i++) {
        out[i] = data.getInt((long) i * Integer.BYTES);
      }
    } else {
      throw new IllegalArgumentException("join columns must be BIGINT or INT vectors; " + vector.getName() + " is "
          + vector.getMinorType());
    }
    return out;
  }

  private static long[] copyValidity(ArrowBuf bitmap, int n) {
    long[] words = new long[(n + 63) / 64];
    for (int b = 0; b < (n + 7) / 8; b++) {
      words[b >>> 3] |= (bitmap.getByte(b) & 0xFFL) << ((b & 7) * 8);
    }
    return words;
  }

  public int rows() {
    return keys.length;
  }

  public long key(int row) {
    return keys[row];
  }

  public boolean hasPayloads() {
    return payloads != null;
  }

  public boolean hasNulls() {
    return validity != null;
  }

  public boolean isNull(int row) {
    return validity != null && (validity[row >>> 6] & (1L << row)) == 0;
  }

  /**
   * The value a join carries for {@code row}: the row index when materializing, the payload when
   * aggregating (so the aggregate never goes back to the base column at random).
   */
  public long value(int row, JoinOutput output) {
    return output == JoinOutput.MATERIALIZED ? row : payloads[row];
  }

  /** Checks that this input can feed a join producing {@code output}; {@code side} names it in the error. */
  public void checkUsableFor(JoinOutput output, String side) {
    if (output == JoinOutput.AGGREGATED && payloads == null) {
      throw new IllegalArgumentException(side + " side has no payload column, which an AGGREGATED join sums");
    }
  }
}
