package org.spillway.gpu.join.inlj;

import java.util.Arrays;
import org.spillway.gpu.join.JoinType;
import org.spillway.gpu.pipeline.scheduler.MorselScheduler;

/**
 * A join's output as row ids: pair {@code i} joins probe row {@code probeRows[i]} with build row
 * {@code buildRows[i]}, probe rows ascending (the probe's order). As in {@link org.spillway.gpu.join.JoinResult},
 * build row -1 stands for no build row: every pair of SEMI and ANTI, and the unmatched probe rows of LEFT_OUTER.
 * The arrays are the result's own, handed out without a copy.
 */
public record JoinIndex(int[] probeRows, long[] buildRows) {
  /** Probe rows below which emitting the join index stays on one thread. */
  private static final int EMIT_RANGE_ROWS = 1 << 16;

  public JoinIndex {
    if (probeRows.length != buildRows.length) {
      throw new IllegalArgumentException("a join index pairs rows one to one, got " + probeRows.length
          + " probe rows and " + buildRows.length + " build rows");
    }
  }

  /**
   * The pairs {@code type} keeps of probe rows {@code 0 .. count-1}, in that order, where probe row {@code i} found
   * build row {@code buildRowAt[i]} (-1 for none): what both the CPU and the GPU join emit, so that their join indexes
   * are interchangeable. Emitted on {@code threads} threads: each range of probe rows counts the pairs it keeps, then
   * writes them at its offset (the join index of a large probe is as large as the probe, and one thread emitting it
   * took longer than the lookups).
   */
  static JoinIndex inProbeOrder(long[] buildRowAt, int count, JoinType type, int threads) {
    int ranges = Math.max(1, Math.min(threads * 4, (count + EMIT_RANGE_ROWS - 1) / EMIT_RANGE_ROWS));
    long rangeRows = ((long) count + ranges - 1) / ranges;
    int[] offsets = new int[ranges + 1];
    MorselScheduler.forEach(ranges, threads, () -> false, (worker, range) -> {
      int kept = 0;
      for (int i = (int) Math.min(count, range * rangeRows), end = (int) Math.min(count, i + rangeRows); i < end;
          i++) {
        kept += keeps(type, buildRowAt[i] >= 0) ? 1 : 0;
      }
      offsets[range + 1] = kept;
    });
    for (int r = 0; r < ranges; r++) {
      offsets[r + 1] += offsets[r];
    }
    int[] probeRows = new int[offsets[ranges]];
    long[] buildRows = new long[offsets[ranges]];
    MorselScheduler.forEach(ranges, threads, () -> false, (worker, range) -> {
      int at = offsets[range];
      for (int i = (int) Math.min(count, range * rangeRows), end = (int) Math.min(count, i + rangeRows); i < end;
          i++) {
        boolean matched = buildRowAt[i] >= 0;
        if (keeps(type, matched)) {
          probeRows[at] = i;
          buildRows[at++] = type.existenceOnly() ? -1 : buildRowAt[i];
        }
      }
    });
    return new JoinIndex(probeRows, buildRows);
  }

  private static boolean keeps(JoinType type, boolean matched) {
    return switch (type) {
      case INNER, SEMI -> matched;
      case ANTI -> !matched;
      case LEFT_OUTER -> true;
    };
  }

  public int size() {
    return probeRows.length;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof JoinIndex that && Arrays.equals(probeRows, that.probeRows)
        && Arrays.equals(buildRows, that.buildRows);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(probeRows) + Arrays.hashCode(buildRows);
  }

  @Override
  public String toString() {
    return "JoinIndex[" + size() + " pairs]";
  }
}
