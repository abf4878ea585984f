package org.spillway.gpu.pipeline.gpu;

import java.util.List;
import org.spillway.gpu.expr.AggCall;
import org.spillway.gpu.pipeline.PipelineStage;

/**
 * An aggregation right after the GPU's aggregation that groups its groups again by some of their keys and counts them:
 * COUNT(DISTINCT x) GROUP BY k as Calcite plans it (GROUP BY k, x, then COUNT(x) GROUP BY k). TPC-H Q16 makes over a
 * million (brand, type, size, supplier) groups of 27840 (brand, type, size) ones; read back and regrouped on the CPU,
 * the million cost far more than the pass that made them. The device regroups them instead
 * (columnar_pipeline_regroup): each group's packed key, masked to the outer keys' bits and NULL flags, is found or
 * inserted in a second hash table, and only the outer groups come back. Outer keys keep the bits they had in the
 * inner key, so they decode with the inner key's layout.
 */
final class GpuRegroup {
  /** The most calls a regrouping counts: their NULL flag bits travel as the bytes of one 64-bit kernel argument. */
  static final int MAX_CALLS = 8;

  private final PipelineStage.Aggregate outer;
  /** Per outer key: the inner key it is (the inner aggregation's output column). */
  private final int[] keyOf;
  /** Per outer call: the inner key it counts, or -1 for COUNT(*). */
  private final int[] countedKey;

  private GpuRegroup(PipelineStage.Aggregate outer, int[] keyOf, int[] countedKey) {
    this.outer = outer;
    this.keyOf = keyOf;
    this.countedKey = countedKey;
  }

  /**
   * The regrouping of the aggregation after stage {@code aggregateStage} of {@code stages}, or null where the stage
   * after it is no aggregation of that shape: grouped by inner keys (at least one), each call a COUNT(*) or a COUNT of
   * an inner key, at most {@link #MAX_CALLS} of them.
   */
  static GpuRegroup of(List<PipelineStage> stages, int aggregateStage) {
    if (aggregateStage < 0 || aggregateStage + 1 >= stages.size()
        || !(stages.get(aggregateStage) instanceof PipelineStage.Aggregate inner)
        || !(stages.get(aggregateStage + 1) instanceof PipelineStage.Aggregate outer)) {
      return null;
    }
    int innerKeys = inner.groupKeys().length;
    if (innerKeys == 0 || outer.groupKeys().length == 0 || outer.calls().size() > MAX_CALLS) {
      return null;
    }
    int[] keyOf = outer.groupKeys().clone();
    for (int key : keyOf) {
      if (key >= innerKeys) {
        return null;
      }
    }
    int[] counted = new int[outer.calls().size()];
    for (int c = 0; c < counted.length; c++) {
      AggCall call = outer.calls().get(c);
      if (call.kind() != AggCall.Kind.COUNT || call.argument() >= innerKeys) {
        return null;
      }
      counted[c] = call.argument();
    }
    return new GpuRegroup(outer, keyOf, counted);
  }

  PipelineStage.Aggregate outer() {
    return outer;
  }

  /**
   * The layout of a run whose inner keys take {@code bits} bits each (64: the whole word), are offset by
   * {@code offsets} and have the NULL flags {@code nullBits} (-1: none); null where a key takes the whole word, so no
   * mask can keep some keys of it.
   */
  Layout layout(int[] bits, long[] offsets, int[] nullBits) {
    int[] shifts = new int[bits.length];
    for (int k = 0; k < bits.length; k++) {
      if (bits[k] >= 64) {
        return null;
      }
      shifts[k] = k == 0 ? 0 : shifts[k - 1] + bits[k - 1];
    }
    long mask = 0;
    int[] outerBits = new int[keyOf.length];
    int[] outerShifts = new int[keyOf.length];
    long[] outerOffsets = new long[keyOf.length];
    int[] outerNullBits = new int[keyOf.length];
    for (int j = 0; j < keyOf.length; j++) {
      int k = keyOf[j];
      mask |= ((1L << bits[k]) - 1) << shifts[k] | (nullBits[k] >= 0 ? 1L << nullBits[k] : 0);
      outerBits[j] = bits[k];
      outerShifts[j] = shifts[k];
      outerOffsets[j] = offsets[k];
      outerNullBits[j] = nullBits[k];
    }
    long callNullBits = 0;
    long tracked = 0;
    for (int c = 0; c < countedKey.length; c++) {
      int bit = countedKey[c] >= 0 ? nullBits[countedKey[c]] : -1;
      callNullBits |= (bit >= 0 ? bit : 0xffL) << (8 * c);
      tracked |= bit >= 0 ? 1L << c : 0;
    }
    for (int c = countedKey.length; c < MAX_CALLS; c++) {
      callNullBits |= 0xffL << (8 * c);
    }
    return new Layout(mask, callNullBits, countedKey.length, tracked, outerBits, outerShifts, outerOffsets,
        outerNullBits);
  }

  /**
   * One run's regrouping: the {@code mask} of the outer keys' bits and NULL flags in the inner packed key, the NULL
   * flag bit each of the {@code calls} counts ({@code callNullBits}, a byte each, 0xff for none), the calls that count
   * non-NULL keys ({@code trackedCalls}), and per outer key its bits, shift, offset and NULL flag in the packed key.
   */
  record Layout(long mask, long callNullBits, int calls, long trackedCalls, int[] bits, int[] shifts, long[] offsets,
      int[] nullBits) {
    /**
     * Slots of the outer hash table over {@code innerGroups} groups: twice the most groups there can be (no more than
     * the inner groups, nor than the values of the mask's bits), so that it never fills.
     */
    long capacity(long innerGroups) {
      int keyBits = Long.bitCount(mask);
      long most = keyBits >= 40 ? innerGroups : Math.min(innerGroups, 1L << keyBits);
      long capacity = 16;
      while (capacity < 2 * most) {
        capacity *= 2;
      }
      return capacity;
    }
  }
}
