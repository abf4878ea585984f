package org.spillway.gpu.aggregate;

import org.spillway.gpu.expr.AggCall;
import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * The 128-bit accumulators of wide sums ({@link AggCall#isWideSum}) and their exact values. The CPU backend keeps
 * per group a signed 64-bit partial sum and the count of its wrap-arounds (+1 for each 2^64 it overflowed upwards,
 * -1 downwards): the sum is {@code wraps * 2^64 + low}, one add and one rarely taken branch per row, as cheap as
 * the checked 64-bit sum. The GPU kernels keep two's-complement (low, high) words.
 */
public final class WideSums {
  private WideSums() {}

  /** Adds the non-NULL rows of {@code values} into the groups' accumulators and marks those groups seen. */
  static void add(long[] low, long[] wraps, boolean[] seen, long[] values, boolean[] nulls, int[] groups, int n) {
    for (int i = 0; i < n; i++) {
      if (nulls == null || !nulls[i]) {
        int g = groups[i];
        low[g] = add(low, wraps, g, values[i]);
        seen[g] = true;
      }
    }
  }

  /** {@code low[g] + x} modulo 2^64, counting a wrap-around of the signed partial sum into {@code wraps[g]}. */
  static long add(long[] low, long[] wraps, int g, long x) {
    long a = low[g];
    long s = a + x;
    if (((a ^ s) & (x ^ s)) < 0) {  // both operands had the sign the sum lost
      wraps[g] += x < 0 ? -1 : 1;
    }
    return s;
  }

  /** The value {@code wraps * 2^64 + low} at {@code scale}. */
  static BigDecimal value(long low, long wraps, int scale) {
    if (wraps == 0) {
      return BigDecimal.valueOf(low, scale);
    }
    return new BigDecimal(BigInteger.valueOf(wraps).shiftLeft(64).add(BigInteger.valueOf(low)), scale);
  }

  /** The value of the two's-complement 128-bit integer (high, low) at {@code scale}. */
  public static BigDecimal ofTwosComplement(long low, long high, int scale) {
    if (high == low >> 63) {
      return BigDecimal.valueOf(low, scale);
    }
    BigInteger unsignedLow = BigInteger.valueOf(low & Long.MAX_VALUE).setBit(63);
    BigInteger lowPart = low < 0 ? unsignedLow : BigInteger.valueOf(low);
    return new BigDecimal(BigInteger.valueOf(high).shiftLeft(64).add(lowPart), scale);
  }
}
