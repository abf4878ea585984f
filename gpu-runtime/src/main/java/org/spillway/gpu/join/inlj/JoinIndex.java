package org.spillway.gpu.join.inlj;

import java.util.Arrays;
import org.spillway.gpu.join.JoinType;

/**
 * A join's output as row ids: pair {@code i} joins probe row {@code probeRows[i]} with build row
 * {@code buildRows[i]}, probe rows ascending (the probe's order). As in {@link org.spillway.gpu.join.JoinResult},
 * build row -1 stands for no build row: every pair of SEMI and ANTI, and the unmatched probe rows of LEFT_OUTER.
 * The arrays are the result's own, handed out without a copy.
 */
public record JoinIndex(int[] probeRows, long[] buildRows) {
  public JoinIndex {
    if (probeRows.length != buildRows.length) {
      throw new IllegalArgumentException("a join index pairs rows one to one, got " + probeRows.length
          + " probe rows and " + buildRows.length + " build rows");
    }
  }

  /**
   * The pairs {@code type} keeps of probe rows {@code firstRow .. firstRow+count-1}, in that order, where probe row
   * {@code firstRow + i} found build row {@code buildRowAt[i]} (-1 for none): what both the CPU and the GPU join
   * emit, so that their join indexes are interchangeable.
   */
  static JoinIndex inProbeOrder(long[] buildRowAt, int count, int firstRow, JoinType type) {
    int size = 0;
    for (int i = 0; i < count; i++) {
      size += keeps(type, buildRowAt[i] >= 0) ? 1 : 0;
    }
    int[] probeRows = new int[size];
    long[] buildRows = new long[size];
    int at = 0;
    for (int i = 0; i < count; i++) {
      boolean matched = buildRowAt[i] >= 0;
      if (keeps(type, matched)) {
        probeRows[at] = firstRow + i;
        buildRows[at++] = type.existenceOnly() ? -1 : buildRowAt[i];
      }
    }
    return new JoinIndex(probeRows, buildRows);
  }

  private static boolean keeps(JoinType type, boolean matched) {
    return switch (type) {
      case INNER, SEMI -> matched;
      case ANTI -> !matched;
      case LEFT_OUTER -> true;
    };
  }

  /** Concatenates {@code parts} in their order. */
  static JoinIndex concat(JoinIndex[] parts) {
    int size = 0;
    for (JoinIndex part : parts) {
      size = Math.addExact(size, part.size());
    }
    int[] probe = new int[size];
    long[] build = new long[size];
    int at = 0;
    for (JoinIndex part : parts) {
      System.arraycopy(part.probeRows, 0, probe, at, part.size());
      System.arraycopy(part.buildRows, 0, build, at, part.size());
      at += part.size();
    }
    return new JoinIndex(probe, build);
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
