package org.spillway.gpu.pipeline.gpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.spillway.gpu.expr.AggCall;
import org.spillway.gpu.expr.Expr;
import org.spillway.gpu.pipeline.PipelineStage;
import org.spillway.gpu.vector.ExprType;

/** Which aggregations after the GPU's the device regroups, and the masks and key layout it uses (no GPU needed). */
class GpuRegroupTest {
  /** GROUP BY supplier, brand, type, size (Q16's inner aggregation, as the output columns 0 to 3). */
  private static final PipelineStage.Aggregate INNER = new PipelineStage.Aggregate(new int[] {1, 3, 4, 5}, List.of());
  private static final AggCall COUNT_SUPPLIER = new AggCall(AggCall.Kind.COUNT, 0, ExprType.INT64);
  private static final AggCall COUNT_ALL = new AggCall(AggCall.Kind.COUNT, -1, ExprType.INT64);

  @Test void q16sCountDistinctRegroupsByThreeKeys() {
    GpuRegroup regroup = GpuRegroup.of(List.of(INNER,
        new PipelineStage.Aggregate(new int[] {1, 2, 3}, List.of(COUNT_SUPPLIER))), 0);
    assertNotNull(regroup);
    // supplier 14 bits at 0, brand 5 at 14, type 8 at 19, size 6 at 27; NULL flags of supplier (33) and brand (34)
    GpuRegroup.Layout layout = regroup.layout(new int[] {14, 5, 8, 6}, new long[] {0, 0, 0, 1},
        new int[] {33, 34, -1, -1});
    assertEquals(((1L << 19) - 1) << 14 | 1L << 34, layout.mask(), "brand, type, size and brand's NULL flag");
    assertArrayEquals(new int[] {5, 8, 6}, layout.bits());
    assertArrayEquals(new int[] {14, 19, 27}, layout.shifts());
    assertArrayEquals(new long[] {0, 0, 1}, layout.offsets());
    assertArrayEquals(new int[] {34, -1, -1}, layout.nullBits());
    assertEquals(33 | -1L << 8, layout.callNullBits(), "the count skips groups whose supplier is NULL; 0xff for none");
    assertEquals(1, layout.trackedCalls());
    assertEquals(1, layout.calls());
  }

  @Test void countOfAKeyThatIsNeverNullAndCountStarTakeTheRowCount() {
    GpuRegroup regroup = GpuRegroup.of(List.of(INNER,
        new PipelineStage.Aggregate(new int[] {3}, List.of(COUNT_ALL, COUNT_SUPPLIER))), 0);
    GpuRegroup.Layout layout = regroup.layout(new int[] {16, 16, 16, 15}, new long[4], new int[] {-1, -1, -1, -1});
    assertEquals(-1L, layout.callNullBits());
    assertEquals(0, layout.trackedCalls());
    assertNull(regroup.layout(new int[] {64, 0, 0, 0}, new long[4], new int[] {-1, -1, -1, -1}),
        "a 64-bit key leaves no bits to mask");
  }

  /** Twice the most outer groups there can be: no more than the inner groups, nor than the mask's values. */
  @Test void theOuterTableNeverFills() {
    int[] bits = {20, 3, 3, 3};
    GpuRegroup.Layout layout = regroupBy(2).layout(bits, new long[4], new int[] {-1, -1, -1, -1});
    assertEquals(16, layout.capacity(1_000_000), "3 bits: 8 groups at most");
    assertEquals(16, layout.capacity(5));
    GpuRegroup.Layout wide = regroupBy(0).layout(bits, new long[4], new int[] {-1, -1, -1, -1});
    assertEquals(1 << 21, wide.capacity(1_000_000));
  }

  /** Q16's inner aggregation regrouped by its output column {@code key}, counting the groups. */
  private static GpuRegroup regroupBy(int key) {
    return GpuRegroup.of(List.of(INNER, new PipelineStage.Aggregate(new int[] {key}, List.of(COUNT_ALL))), 0);
  }

  @Test void onlyCountsByInnerKeysRegroup() {
    PipelineStage.Aggregate counting = new PipelineStage.Aggregate(new int[] {0}, List.of(new AggCall(
        AggCall.Kind.COUNT, 1, ExprType.INT64)));
    PipelineStage.Aggregate withSum = new PipelineStage.Aggregate(new int[] {0, 1}, List.of(
        new AggCall(AggCall.Kind.SUM, 1, ExprType.INT64)));
    assertNull(GpuRegroup.of(List.of(withSum, new PipelineStage.Aggregate(new int[] {0}, List.of(
        new AggCall(AggCall.Kind.SUM, 2, ExprType.INT64)))), 0), "a sum of a sum");
    assertNull(GpuRegroup.of(List.of(withSum, new PipelineStage.Aggregate(new int[] {2}, List.of(COUNT_ALL))), 0),
        "grouped by a call's result");
    assertNull(GpuRegroup.of(List.of(INNER, new PipelineStage.Aggregate(new int[0], List.of(COUNT_ALL))), 0),
        "a global count, which has a row also over no groups");
    assertNull(GpuRegroup.of(List.of(INNER, new PipelineStage.Filter(new Expr.Literal(true, ExprType.BOOLEAN)),
        counting), 0), "not right after the aggregation");
    assertNull(GpuRegroup.of(List.of(INNER), 0));
    assertNotNull(GpuRegroup.of(List.of(INNER, counting), 0));
  }
}
