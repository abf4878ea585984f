package org.spillway.gpu.aggregate;

import org.spillway.gpu.pipeline.SourceBatch;
import org.spillway.gpu.vector.ExprType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;

/**
 * Test data for wide sums: batches of (k INT32 in 0..4, v DECIMAL(2) of up to 2^62 in magnitude, s DECIMAL(2) of
 * small values), NULLs in v and s one row in nine when asked, so that sums of a few thousand rows cross 2^63 and
 * 2^64; and the exact sums per key, as the reference.
 */
public final class WideSumData implements AutoCloseable {
  public static final List<ExprType> TYPES = List.of(ExprType.INT32, ExprType.decimal(2), ExprType.decimal(2));

  /** Which signs the large values take. */
  public enum Signs { POSITIVE, NEGATIVE, MIXED }

  private final BufferAllocator allocator;
  private final List<FieldVector> vectors = new ArrayList<>();
  /** Per key: the exact sum of v and its non-NULL count; key -1 holds the totals. */
  final Map<Integer, BigInteger> sums = new HashMap<>();
  final Map<Integer, Long> counts = new HashMap<>();

  public WideSumData(BufferAllocator allocator) {
    this.allocator = allocator;
  }

  /** A batch of {@code rows} random rows, accounted in the reference sums. */
  public SourceBatch batch(Random random, int rows, Signs signs, boolean nulls) {
    IntVector k = new IntVector("k", allocator);
    BigIntVector v = new BigIntVector("v", allocator);
    BigIntVector s = new BigIntVector("s", allocator);
    vectors.addAll(List.of(k, v, s));
    k.allocateNew(Math.max(rows, 1));
    v.allocateNew(Math.max(rows, 1));
    s.allocateNew(Math.max(rows, 1));
    for (int r = 0; r < rows; r++) {
      int key = random.nextInt(5);
      k.set(r, key);
      if (nulls && random.nextInt(9) == 0) {
        v.setNull(r);
        s.setNull(r);
        continue;
      }
      long magnitude = (1L << 62) - random.nextInt(1 << 20);
      boolean negative = switch (signs) {
        case POSITIVE -> false;
        case NEGATIVE -> true;
        case MIXED -> random.nextInt(3) == 0;  // mostly positive: the sums still drift past 2^64
      };
      long value = negative ? -magnitude : magnitude;
      v.set(r, value);
      s.set(r, random.nextInt(20_001) - 10_000);
      for (int group : new int[] {key, -1}) {
        sums.merge(group, BigInteger.valueOf(value), BigInteger::add);
        counts.merge(group, 1L, Long::sum);
      }
    }
    k.setValueCount(rows);
    v.setValueCount(rows);
    s.setValueCount(rows);
    return new SourceBatch(List.of(k, v, s), rows);
  }

  /** The exact SUM of v of a key (-1: all rows) at scale 2, or null when it saw no value. */
  public BigDecimal sum(int key) {
    return counts.containsKey(key) ? new BigDecimal(sums.get(key), 2) : null;
  }

  /** The largest |SUM| among the keys, to show that the data crossed the 64-bit range. */
  public BigInteger largestMagnitude() {
    return sums.values().stream().map(BigInteger::abs).max(BigInteger::compareTo).orElse(BigInteger.ZERO);
  }

  @Override public void close() {
    vectors.forEach(FieldVector::close);
    vectors.clear();
  }
}
