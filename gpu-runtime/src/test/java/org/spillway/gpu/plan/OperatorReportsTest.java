package org.spillway.gpu.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.spillway.gpu.pipeline.ColumnBatch;
import org.spillway.gpu.pipeline.sort.SortKey;
import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;

/**
 * The per-operator reports of a run: every report of nodes finishing on many threads at once is kept, each
 * thread's in the order it made them; a report carries what the planner said about its node (or the node's class
 * where it said nothing); real nodes report the rows they output, and a shared subtree runs (and reports) once,
 * its other uses as {@code shared}.
 */
class OperatorReportsTest {
  private static final List<ExprType> TYPES = List.of(ExprType.INT64);

  @Test void concurrentReportsAreAllKeptInEachThreadsOrder() throws Exception {
    int threads = 8;
    int perThread = 500;
    Map<PlanNode, PlannedOperator> planned = new IdentityHashMap<>();
    List<PlanNode> nodes = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      PlanNode node = source(0);
      nodes.add(node);
      planned.put(node, new PlannedOperator("thread " + t, t, t * 1.5));
    }
    RunContext context = new RunContext(threads, () -> false, planned, new OperatorReports());
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<?>> done = new ArrayList<>();
    try {
      for (int t = 0; t < threads; t++) {
        PlanNode node = nodes.get(t);
        done.add(pool.submit(() -> {
          go.await();
          for (int i = 0; i < perThread; i++) {
            context.report(node, OperatorReport.Execution.CPU, i, System.nanoTime());
          }
          return null;
        }));
      }
      go.countDown();
      for (Future<?> f : done) {
        f.get(30, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    List<OperatorReport> reports = context.reports().list();
    assertEquals(threads * perThread, reports.size());
    long[] next = new long[threads];
    for (OperatorReport r : reports) {
      int t = r.planned().planId();
      assertEquals("thread " + t, r.planned().label());
      assertEquals(t * 1.5, r.planned().predictedMillis());
      assertEquals(next[t]++, r.rows(), "thread " + t + "'s reports in the order it made them");
      assertTrue(r.nanos() >= 0);
    }
    for (long n : next) {
      assertEquals(perThread, n);
    }
  }

  @Test void aNodeThePlannerDidNotNameReportsItsClass() {
    RunContext context = new RunContext(1, () -> false);
    SortNode sort = new SortNode(source(3), List.of(), 0, -1);
    sort.run(context);
    OperatorReport report = single(context);
    assertEquals("SortNode", report.planned().label());
    assertEquals(-1, report.planned().planId());
    assertFalse(report.planned().predicted());
  }

  @Test void aSortReportsTheRowsItKeeps() {
    int rows = 1000;
    SortNode topN = new SortNode(source(rows), List.of(new SortKey(0, true, false)), 10, 25);
    Map<PlanNode, PlannedOperator> planned = new IdentityHashMap<>();
    planned.put(topN, new PlannedOperator("top 25", 7, 0.25));
    RunContext context = new RunContext(2, () -> false, planned, new OperatorReports());
    NodeOutput out = topN.run(context);
    OperatorReport report = single(context);
    assertEquals(out.rows(), report.rows());
    assertEquals(25, report.rows());
    assertEquals("cpu", report.execution().device());
    assertEquals(0, report.execution().linkBytes());
    assertEquals(0, report.linkGigabytesPerSecond());
    assertEquals("top 25", report.planned().label());
    assertTrue(report.nanos() >= 0);
  }

  @Test void aSharedSubtreeRunsOnceAndItsOtherUsesReportShared() {
    PlanNode input = source(40);
    SharedNode shared = new SharedNode(new SortNode(input, List.of(), 0, -1), () -> 2);
    RunContext context = new RunContext(1, () -> false);
    NodeOutput first = shared.run(context);
    NodeOutput second = shared.run(context);
    assertSame(first, second);
    List<OperatorReport> reports = context.reports().list();
    assertEquals(List.of("cpu", "shared"), reports.stream().map(r -> r.execution().device()).toList());
    assertEquals(List.of(40L, 40L), reports.stream().map(OperatorReport::rows).toList());
  }

  @Test void aGpuExecutionCarriesItsLinkBytes() {
    OperatorReport report = new OperatorReport(new PlannedOperator("scan", 1, 2.0),
        OperatorReport.Execution.gpu(4_000_000_000L, 16), 1, 2_000_000_000L);
    assertEquals(2.0, report.linkGigabytesPerSecond(), 1e-12);
    assertTrue(report.toString().contains("4000000000 bytes over the link, 16 back"), report.toString());
  }

  private static OperatorReport single(RunContext context) {
    List<OperatorReport> reports = context.reports().list();
    assertEquals(1, reports.size(), reports.toString());
    return reports.get(0);
  }

  /** A node that outputs {@code rows} rows of 0, 1, 2, ... and reports nothing itself. */
  private static PlanNode source(int rows) {
    long[] values = new long[rows];
    for (int r = 0; r < rows; r++) {
      values[r] = r;
    }
    List<ColumnBatch> batches = rows == 0 ? List.of()
        : List.of(new ColumnBatch(new ColumnVector[] {ColumnVector.ofLongs(ExprType.INT64, values, null, rows)}, rows));
    return new PlanNode() {
      @Override public List<ExprType> types() {
        return TYPES;
      }

      @Override public NodeOutput run(RunContext context) {
        return new BatchOutput(batches, TYPES);
      }
    };
  }
}
