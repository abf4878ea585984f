package org.spillway.gpu.pipeline.gpu;

import java.math.BigDecimal;
import java.util.List;
import org.apache.arrow.memory.util.MemoryUtil;
import org.spillway.gpu.aggregate.HashAggregator;
import org.spillway.gpu.aggregate.WideSums;
import org.spillway.gpu.expr.AggCall;
import org.spillway.gpu.pipeline.PipelineStage;
import org.spillway.gpu.pipeline.scheduler.MorselScheduler;
import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;

/**
 * The result columns of an aggregate state copied back to host memory ({@link GpuAggregateState}'s layout at
 * {@code address}): the occupied slots in slot order, each a group. Ranges of groups decode on all the engine's
 * workers: a state of a million groups (Q13's customers, Q16's part-supplier pairs) is tens of megabytes, which one
 * thread unpacks in tens of milliseconds.
 */
final class GpuStateColumns {
  /** Groups a task decodes (and slots a task scans for occupied ones). */
  static final int RANGE = MorselScheduler.MORSEL_ROWS;

  private final long address;
  private final long capacity;
  private final long slots;

  /** The state of {@code capacity} slots (0: global) at {@code address}. */
  GpuStateColumns(long address, long capacity) {
    this.address = address;
    this.capacity = capacity;
    this.slots = capacity == 0 ? 1 : capacity + 1;
  }

  private long at(long index) {
    return MemoryUtil.getLong(address + 8 * index);
  }

  /** See {@link GpuAggregateState#result}. */
  ColumnVector[] columns(PipelineStage.Aggregate aggregate, List<ExprType> inputTypes, int[] keyBits,
      long[] keyOffsets, int[] keyNullBits, long trackedCalls) {
    return columns(aggregate, inputTypes, keyBits, shifts(keyBits), keyOffsets, keyNullBits, trackedCalls);
  }

  /** Where each key of {@code keyBits} bits starts in the packed key: one after the other (a 64-bit key alone). */
  static int[] shifts(int[] keyBits) {
    int[] shifts = new int[keyBits.length];
    for (int k = 1; k < keyBits.length; k++) {
      shifts[k] = shifts[k - 1] + (keyBits[k - 1] == 64 ? 0 : keyBits[k - 1]);
    }
    return shifts;
  }

  /** As above, key k at bit {@code shifts[k]} of the packed key. */
  ColumnVector[] columns(PipelineStage.Aggregate aggregate, List<ExprType> inputTypes, int[] keyBits, int[] shifts,
      long[] keyOffsets, int[] keyNullBits, long trackedCalls) {
    int[] slotOf = occupiedSlots();
    int rows = slotOf.length;
    int[] groupKeys = aggregate.groupKeys();
    List<AggCall> calls = aggregate.calls();
    long[][] values = new long[groupKeys.length + calls.size()][rows];
    boolean[][] nulls = new boolean[values.length][];
    Object[][] wide = new Object[calls.size()][];
    for (int k = 0; k < groupKeys.length; k++) {
      nulls[k] = keyNullBits[k] >= 0 ? new boolean[rows] : null;
    }
    for (int c = 0; c < calls.size(); c++) {
      nulls[groupKeys.length + c] = calls.get(c).kind() == AggCall.Kind.COUNT ? null : new boolean[rows];
      wide[c] = calls.get(c).isWideSum() ? new Object[rows] : null;
    }
    MorselScheduler.forEach((rows + RANGE - 1) / RANGE, MorselScheduler.THREADS, () -> false, (worker, task) -> {
      int from = task * RANGE;
      int to = Math.min(rows, from + RANGE);
      for (int k = 0; k < groupKeys.length; k++) {
        keys(slotOf, from, to, keyBits[k], shifts[k], keyOffsets[k], keyNullBits[k], values[k], nulls[k]);
      }
      for (int c = 0; c < calls.size(); c++) {
        int column = groupKeys.length + c;
        calls(calls.get(c), c, (trackedCalls >>> c & 1) != 0, inputTypes, slotOf, from, to, values[column],
            nulls[column], wide[c]);
      }
    });
    ColumnVector[] out = new ColumnVector[values.length];
    for (int k = 0; k < groupKeys.length; k++) {
      out[k] = ColumnVector.ofLongs(inputTypes.get(groupKeys[k]), values[k], anyNull(nulls[k]), rows);
    }
    for (int c = 0; c < calls.size(); c++) {
      int column = groupKeys.length + c;
      AggCall call = calls.get(c);
      if (wide[c] != null) {
        out[column] = ColumnVector.ofObjects(ExprType.BIG_DECIMAL, wide[c], anyNull(nulls[column]), rows);
      } else {
        HashAggregator.checkResultRange(call, values[column]);
        out[column] = ColumnVector.ofLongs(call.resultType(), values[column], anyNull(nulls[column]), rows);
      }
    }
    return out;
  }

  /** The occupied slots in slot order (every slot of a global state). */
  int[] occupiedSlots() {
    int ranges = (int) ((slots + RANGE - 1) / RANGE);
    int[] counts = new int[ranges + 1];
    MorselScheduler.forEach(ranges, MorselScheduler.THREADS, () -> false, (worker, range) -> {
      int n = 0;
      for (long s = (long) range * RANGE, end = Math.min(slots, s + RANGE); s < end; s++) {
        n += occupied(s) ? 1 : 0;
      }
      counts[range + 1] = n;
    });
    for (int r = 0; r < ranges; r++) {
      counts[r + 1] += counts[r];
    }
    int[] slotOf = new int[counts[ranges]];
    MorselScheduler.forEach(ranges, MorselScheduler.THREADS, () -> false, (worker, range) -> {
      int g = counts[range];
      for (long s = (long) range * RANGE, end = Math.min(slots, s + RANGE); s < end; s++) {
        if (occupied(s)) {
          slotOf[g++] = (int) s;
        }
      }
    });
    return slotOf;
  }

  private boolean occupied(long slot) {
    return capacity == 0 || at(2 + slots + slot) > 0;
  }

  /** Key values of groups {@code from .. to-1}: {@code bits} of the packed key from {@code shift}, plus offset. */
  private void keys(int[] slotOf, int from, int to, int bits, int shift, long offset, int nullBit, long[] values,
      boolean[] nulls) {
    for (int g = from; g < to; g++) {
      int s = slotOf[g];
      long key = s == capacity ? -1L : at(2 + s);
      if (nullBit >= 0 && (key >>> nullBit & 1) != 0) {
        nulls[g] = true;
        continue;
      }
      values[g] = bits == 64 ? key : bits == 32 ? (int) (key >>> shift) : (key >>> shift & (1L << bits) - 1) + offset;
    }
  }

  /**
   * Values of call {@code c} for groups {@code from .. to-1}: a COUNT its count; a SUM, MIN or MAX without a non-NULL
   * argument NULL (SUM0 0); a wide sum's two words its exact value, any other sum's must fit 64 bits.
   */
  private void calls(AggCall call, int c, boolean tracked, List<ExprType> types, int[] slotOf, int from, int to,
      long[] values, boolean[] nulls, Object[] wide) {
    int scale = call.argument() < 0 ? 0 : types.get(call.argument()).scale();
    long lo = 2 + (2 + 3L * c) * slots;
    boolean sum = call.kind() == AggCall.Kind.SUM || call.kind() == AggCall.Kind.SUM0;
    for (int g = from; g < to; g++) {
      int s = slotOf[g];
      long rowCount = at(2 + slots + s);
      long count = call.argument() < 0 || !tracked ? rowCount : at(lo + 2 * slots + s);
      if (call.kind() == AggCall.Kind.COUNT) {
        values[g] = count;
        continue;
      }
      if (count == 0) {
        if (call.kind() != AggCall.Kind.SUM0) {
          nulls[g] = true;
        } else if (wide != null) {
          wide[g] = BigDecimal.valueOf(0, scale);
        }
        continue;
      }
      values[g] = at(lo + s);
      long high = at(lo + slots + s);
      if (wide != null) {
        wide[g] = WideSums.ofTwosComplement(values[g], high, scale);
      } else if (sum && high != values[g] >> 63) {
        throw HashAggregator.sumOverflow(call, types.get(call.argument()));
      }
    }
  }

  /** {@code nulls} where it flags a row, else null (a column without NULLs carries no flags). */
  private static boolean[] anyNull(boolean[] nulls) {
    if (nulls != null) {
      for (boolean n : nulls) {
        if (n) {
          return nulls;
        }
      }
    }
    return null;
  }
}
