package org.spillway.gpu.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;
import org.spillway.gpu.GpuTest;
import org.spillway.gpu.RandomColumns;
import org.spillway.gpu.expr.AggCall;
import org.spillway.gpu.pipeline.PipelineStage;
import org.spillway.gpu.pipeline.gpu.FilterVariant;
import org.spillway.gpu.transfer.TransferMethod;
import org.spillway.gpu.vector.ExprType;

/**
 * A pipeline over a scan run on the GPU reports it: device gpu, its one output row, at least its column's bytes
 * over the link and the aggregate state back, and what the planner said about it.
 */
@GpuTest
class ScanPipelineNodeReportGpuTest {
  @Test void aGpuPipelineReportsItsLinkBytes() {
    int rows = 200_000;
    try (BufferAllocator allocator = RandomColumns.allocatorFor(TransferMethod.PINNED_COPY);
         BigIntVector values = new BigIntVector("v", allocator)) {
      values.allocateNew(rows);
      long sum = 0;
      for (int r = 0; r < rows; r++) {
        values.set(r, r);
        sum += r;
      }
      values.setValueCount(rows);
      try (VectorSchemaRoot batch = VectorSchemaRoot.of(values)) {
        ScanTable table = table(batch);
        ScanPipelineNode node = new ScanPipelineNode(table, new int[] {0}, List.of(ExprType.INT64),
            List.of(new PipelineStage.Aggregate(new int[0], List.of(new AggCall(AggCall.Kind.SUM, 0, ExprType.INT64),
                new AggCall(AggCall.Kind.COUNT, -1, ExprType.INT64)))),
            new GpuPipelineChoice(TransferMethod.PINNED_COPY, FilterVariant.PREDICATION, 0));
        Map<PlanNode, PlannedOperator> planned = new IdentityHashMap<>();
        planned.put(node, new PlannedOperator("pipeline over v", 3, 0.5));
        RunContext context = new RunContext(2, () -> false, planned, new OperatorReports());
        NodeOutput out = node.run(context);
        assertEquals(sum, out.column(0).longs[0]);
        List<OperatorReport> reports = context.reports().list();
        assertEquals(1, reports.size(), reports.toString());
        OperatorReport report = reports.get(0);
        assertEquals("gpu", report.execution().device(), report.toString());
        assertEquals(1, report.rows());
        assertTrue(report.execution().linkBytes() >= rows * (long) Long.BYTES, report.toString());
        assertTrue(report.execution().returnedBytes() > 0, report.toString());
        assertTrue(report.linkGigabytesPerSecond() > 0, report.toString());
        assertEquals("pipeline over v", report.planned().label());
        assertEquals(0.5, report.planned().predictedMillis());
      }
    }
  }

  private static ScanTable table(VectorSchemaRoot batch) {
    return new ScanTable() {
      @Override public List<VectorSchemaRoot> batches() {
        return List.of(batch);
      }

      @Override public long rowCount() {
        return batch.getRowCount();
      }

      @Override public String name() {
        return "v";
      }

      @Override public DeviceRuns deviceRuns() {
        return DeviceRuns.NONE;
      }
    };
  }
}
