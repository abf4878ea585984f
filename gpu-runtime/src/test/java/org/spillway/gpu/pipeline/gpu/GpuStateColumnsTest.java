package org.spillway.gpu.pipeline.gpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.spillway.gpu.expr.AggCall;
import org.spillway.gpu.pipeline.PipelineStage;
import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;

/**
 * Aggregate states laid out as the GPU leaves them, read back into columns: the occupied slots over many decoding
 * ranges, in slot order, with packed keys, NULL keys, the empty marker's slot, counts, NULL sums and wide sums.
 */
class GpuStateColumnsTest {
  private static final List<ExprType> TYPES = List.of(ExprType.INT32, ExprType.INT64, ExprType.decimal(2));
  private static final PipelineStage.Aggregate AGGREGATE = new PipelineStage.Aggregate(new int[] {0, 1},
      List.of(new AggCall(AggCall.Kind.COUNT, -1, ExprType.INT64), new AggCall(AggCall.Kind.SUM, 2, ExprType.decimal(2)),
          AggCall.wideSum(AggCall.Kind.SUM0, 2), new AggCall(AggCall.Kind.MIN, 2, ExprType.decimal(2))),
      false, null);
  /** Key 0: 16 bits from 100; key 1: 20 bits from -5, its NULL flagged by bit 40. */
  private static final int[] KEY_BITS = {16, 20};
  private static final long[] KEY_OFFSETS = {100, -5};
  private static final int[] KEY_NULL_BITS = {-1, 40};
  /** Calls 1, 2 and 3 counted their non-NULL arguments. */
  private static final long TRACKED = 0b1110;

  /** One group as written into a slot. */
  private record Group(int slot, int key0, Integer key1, long rows, long nonNull, long sum, long high, long min) {}

  @Test void occupiedSlotsDecodeInSlotOrderOverManyRanges() {
    Random random = new Random(17);
    int capacity = 5 * GpuStateColumns.RANGE + 123;
    List<Group> groups = new ArrayList<>();
    for (int s = 0; s <= capacity; s++) {
      if (random.nextInt(3) == 0) {
        continue;
      }
      long rows = 1 + random.nextInt(50);
      long nonNull = random.nextInt(5) == 0 ? 0 : 1 + random.nextInt((int) rows);
      long sum = random.nextLong() >> 2;
      long high = random.nextInt(7) == 0 ? 3 : sum >> 63;  // the wide sum's: some beyond 64 bits
      // the empty marker's slot holds the all-ones key: the largest key 0, and key 1's NULL flag set
      boolean marker = s == capacity;
      groups.add(new Group(s, 100 + (marker ? 0xffff : random.nextInt(1 << 16)),
          marker || random.nextInt(9) == 0 ? null : random.nextInt(1 << 20) - 5, rows, nonNull, sum, high,
          random.nextInt(1000) - 500));
    }
    try (BufferAllocator allocator = new RootAllocator();
        ArrowBuf state = allocator.buffer(GpuAggregateState.bytes(capacity, 4))) {
      write(state, capacity, groups);
      ColumnVector[] columns = new GpuStateColumns(state.memoryAddress(), capacity).columns(AGGREGATE, TYPES, KEY_BITS,
          KEY_OFFSETS, KEY_NULL_BITS, TRACKED);
      // read as a plain SUM, the wide sum's words overflow 64 bits where the high word is more than the sign
      AggCall count = new AggCall(AggCall.Kind.COUNT, -1, ExprType.INT64);
      assertThrows(ArithmeticException.class, () -> new GpuStateColumns(state.memoryAddress(), capacity)
          .columns(new PipelineStage.Aggregate(new int[] {0, 1}, List.of(count, count, new AggCall(AggCall.Kind.SUM,
              2, ExprType.decimal(2))), false, null), TYPES, KEY_BITS, KEY_OFFSETS, KEY_NULL_BITS, 0b100));
      assertEquals(groups.size(), columns[0].size);
      for (int g = 0; g < groups.size(); g++) {
        Group expected = groups.get(g);
        String at = "group " + g + " (slot " + expected.slot() + ")";
        assertEquals(expected.key0(), columns[0].longs[g], at);
        assertEquals(expected.key1() == null, columns[1].isNull(g), at);
        if (expected.key1() != null) {
          assertEquals((long) expected.key1(), columns[1].longs[g], at);
        }
        assertEquals(expected.rows(), columns[2].longs[g], at);
        assertEquals(expected.nonNull() == 0, columns[3].isNull(g), at);
        assertEquals(expected.nonNull() == 0, columns[5].isNull(g), at);
        BigDecimal wide = (BigDecimal) columns[4].objects[g];
        if (expected.nonNull() == 0) {
          assertEquals(BigDecimal.valueOf(0, 2), wide, at);
        } else {
          assertEquals(new BigDecimal(BigInteger.valueOf(expected.high()).shiftLeft(64)
              .add(new BigInteger(Long.toUnsignedString(expected.sum()))), 2), wide, at);
          assertEquals(expected.sum(), columns[3].longs[g], at);
          assertEquals(expected.min(), columns[5].longs[g], at);
        }
      }
      assertNull(columns[0].nulls, "key 0 cannot be NULL");
      assertNull(columns[4].nulls, "a SUM0 is never NULL");
    }
  }

  @Test void aGlobalStateIsOneRowAlsoWithoutInput() {
    try (BufferAllocator allocator = new RootAllocator();
        ArrowBuf state = allocator.buffer(GpuAggregateState.bytes(0, 1))) {
      state.setZero(0, state.capacity());
      PipelineStage.Aggregate global = new PipelineStage.Aggregate(new int[0],
          List.of(new AggCall(AggCall.Kind.COUNT, -1, ExprType.INT64)), false, null);
      ColumnVector[] columns = new GpuStateColumns(state.memoryAddress(), 0).columns(global, TYPES, new int[0],
          new long[0], new int[0], 0);
      assertArrayEquals(new long[] {0}, columns[0].longs);
    }
  }

  /** Writes the groups into a state of {@code capacity} slots (+1 for the empty marker's key), the others empty. */
  private static void write(ArrowBuf state, int capacity, List<Group> groups) {
    long slots = capacity + 1L;
    state.setZero(0, state.capacity());
    for (Group g : groups) {
      long key = (g.key0() - KEY_OFFSETS[0]) | (g.key1() == null ? 1L << KEY_NULL_BITS[1]
          : (long) (g.key1() - KEY_OFFSETS[1]) << KEY_BITS[0]);
      word(state, 2 + g.slot(), g.slot() == capacity ? -1L : key);
      word(state, 2 + slots + g.slot(), g.rows());
      for (int c = 1; c < 4; c++) {
        long lo = 2 + (2 + 3L * c) * slots;
        word(state, lo + g.slot(), c == 3 ? g.min() : g.sum());
        word(state, lo + slots + g.slot(), c == 1 ? g.sum() >> 63 : c == 2 ? g.high() : 0);
        word(state, lo + 2 * slots + g.slot(), g.nonNull());
      }
    }
  }

  private static void word(ArrowBuf state, long index, long value) {
    state.setLong(8 * index, value);
  }
}
