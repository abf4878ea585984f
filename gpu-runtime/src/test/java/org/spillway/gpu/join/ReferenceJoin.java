package org.spillway.gpu.join;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The straightforward join the fast ones are checked against: a HashMap from key to build rows, one lookup
 * per probe row. Pairs are encoded as {@code buildRow << 32 | probeRow} so a result compares as a sorted
 * array (a multiset).
 */
public final class ReferenceJoin {
  private ReferenceJoin() {
  }

  static long encode(int buildRow, int probeRow) {
    return ((long) buildRow << 32) | (probeRow & 0xFFFFFFFFL);
  }

  /** The expected output pairs, sorted; build row -1 for probe-only rows. */
  static long[] pairs(JoinInput build, JoinInput probe, JoinType type) {
    Map<Long, List<Integer>> table = new HashMap<>();
    for (int r = 0; r < build.rows(); r++) {
      if (!build.isNull(r)) {
        table.computeIfAbsent(build.key(r), k -> new ArrayList<>()).add(r);
      }
    }
    List<Long> out = new ArrayList<>();
    for (int row = 0; row < probe.rows(); row++) {
      int p = row;
      List<Integer> matches = probe.isNull(p) ? List.of() : table.getOrDefault(probe.key(p), List.of());
      switch (type) {
        case INNER -> matches.forEach(b -> out.add(encode(b, p)));
        case LEFT_OUTER -> {
          matches.forEach(b -> out.add(encode(b, p)));
          if (matches.isEmpty()) {
            out.add(encode(-1, p));
          }
        }
        case SEMI -> {
          if (!matches.isEmpty()) {
            out.add(encode(-1, p));
          }
        }
        case ANTI -> {
          if (matches.isEmpty()) {
            out.add(encode(-1, p));
          }
        }
        default -> throw new IllegalArgumentException(type.toString());
      }
    }
    long[] sorted = out.stream().mapToLong(Long::longValue).toArray();
    Arrays.sort(sorted);
    return sorted;
  }

  /** {count, build payload sum, probe payload sum} over the expected pairs. */
  static long[] aggregate(long[] pairs, long[] buildPayloads, long[] probePayloads) {
    long buildSum = 0;
    long probeSum = 0;
    for (long pair : pairs) {
      int b = (int) (pair >> 32);
      buildSum += b < 0 ? 0 : buildPayloads[b];
      probeSum += probePayloads[(int) pair];
    }
    return new long[] {pairs.length, buildSum, probeSum};
  }

  /** The pairs of a materialized result, sorted. */
  public static long[] pairsOf(JoinResult result) {
    int[] build = result.buildRows().toArray();
    int[] probe = result.probeRows().toArray();
    long[] out = new long[build.length];
    for (int i = 0; i < out.length; i++) {
      out[i] = encode(build[i], probe[i]);
    }
    Arrays.sort(out);
    return out;
  }
}
