package org.spillway.gpu.bench;

import java.util.SplittableRandom;
import java.util.stream.IntStream;
import org.apache.arrow.memory.util.MemoryUtil;
import org.spillway.gpu.transfer.ColumnType;

/** Fills host memory with random column values in parallel (benchmarks and calibration never time zeros). */
public final class RandomFill {
  private static final long SEGMENT_ROWS = 1L << 20;

  private RandomFill() {}

  /**
   * Writes {@code rows} values of {@code type} at {@code address}: ints over their whole range,
   * doubles in [-1e6, 1e6). The same seed gives the same data whatever the parallelism.
   */
  public static void fill(long address, ColumnType type, long rows, long seed) {
    int segments = (int) ((rows + SEGMENT_ROWS - 1) / SEGMENT_ROWS);
    IntStream.range(0, segments).parallel().forEach(s -> {
      SplittableRandom random = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + s);
      long first = s * SEGMENT_ROWS;
      long end = Math.min(rows, first + SEGMENT_ROWS);
      for (long i = first; i < end; i++) {
        switch (type) {
          case INT32 -> MemoryUtil.putInt(address + 4 * i, random.nextInt());
          case INT64 -> MemoryUtil.putLong(address + 8 * i, random.nextLong());
          case FLOAT64 -> MemoryUtil.putLong(address + 8 * i,
              Double.doubleToRawLongBits(random.nextDouble(-1e6, 1e6)));
        }
      }
    });
  }
}
