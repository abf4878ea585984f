package org.spillway.gpu.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.spillway.gpu.expr.Expr;
import org.spillway.gpu.pipeline.ColumnBatch;
import org.spillway.gpu.pipeline.scheduler.MorselScheduler;
import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;

/**
 * Independent parts of a plan run side by side where none uses the GPU, one after another otherwise, and a node
 * that several of them share still runs once.
 */
class IndependentRunsTest {
  private static final List<ExprType> TYPES = List.of(ExprType.INT64);

  /** Each input of the join waits until the other started: the join finishes only if they run side by side. */
  @Test void cpuOnlyInputsOfAJoinRunSideBySide() {
    assumeTrue(MorselScheduler.THREADS > 1, "one core: parts run one after another");
    CountDownLatch bothStarted = new CountDownLatch(2);
    MaterializedJoinNode join = join(new Keys(true, bothStarted, 1, 2, 3), new Keys(true, bothStarted, 2, 3, 4));
    assertEquals(List.of("2,2", "3,3"), rows(join.run(new RunContext(2, () -> false))));
  }

  /**
   * A nested-loop join's inputs run side by side too, and its pairs (on the engine's workers) are every pair the
   * condition keeps: left key below right key.
   */
  @Test void nestedLoopJoinInputsRunSideBySide() {
    assumeTrue(MorselScheduler.THREADS > 1, "one core: parts run one after another");
    CountDownLatch bothStarted = new CountDownLatch(2);
    Expr below = new Expr.Compare(Expr.CompareOp.LT, new Expr.Column(0, ExprType.INT64),
        new Expr.Column(1, ExprType.INT64));
    NestedLoopJoinNode join = new NestedLoopJoinNode(new Keys(true, bothStarted, 1, 2, 3),
        new Keys(true, bothStarted, 2, 3), below, new int[] {0, 1}, false, false);
    assertEquals(List.of("1,2", "1,3", "2,3"), rows(join.run(new RunContext(2, () -> false))));
  }

  /**
   * One input that may use the GPU runs beside a CPU-only one (each waits until the other started): no two GPU runs
   * can contend for device memory there.
   */
  @Test void oneGpuInputRunsBesideACpuOnlyOne() {
    assumeTrue(MorselScheduler.THREADS > 1, "one core: parts run one after another");
    CountDownLatch bothStarted = new CountDownLatch(2);
    MaterializedJoinNode join = join(new Keys(false, bothStarted, 1, 2, 3), new Keys(true, bothStarted, 2, 3, 4));
    assertEquals(List.of("2,2", "3,3"), rows(join.run(new RunContext(2, () -> false))));
  }

  /** Inputs that may use the GPU never overlap, so two GPU runs never contend for device memory. */
  @Test void inputsThatMayUseTheGpuRunOneAfterAnother() {
    Keys left = new Keys(false, null, 1, 2);
    Keys right = new Keys(false, null, 2, 5);
    AtomicInteger running = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    left.running = right.running = running;
    left.most = right.most = most;
    assertEquals(List.of("2,2"), rows(join(left, right).run(new RunContext(4, () -> false))));
    assertEquals(1, most.get(), "inputs running at once");
  }

  /** Switched off ({@code -Dspillway.plan.sideBySide=false}, for comparisons), CPU-only inputs run one at a time. */
  @Test void switchedOffCpuOnlyInputsRunOneAfterAnother() {
    Keys left = new Keys(true, null, 1, 2);
    Keys right = new Keys(true, null, 2, 5);
    AtomicInteger running = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    left.running = right.running = running;
    left.most = right.most = most;
    System.setProperty(IndependentRuns.SIDE_BY_SIDE_PROPERTY, "false");
    try {
      for (int round = 0; round < 10; round++) {
        assertEquals(List.of("2,2"), rows(join(left, right).run(new RunContext(4, () -> false))));
      }
    } finally {
      System.clearProperty(IndependentRuns.SIDE_BY_SIDE_PROPERTY);
    }
    assertEquals(1, most.get(), "inputs running at once");
  }

  /** One thread: the parts run in order on the caller, however independent. */
  @Test void oneThreadRunsThePartsInOrder() {
    List<Integer> order = Collections.synchronizedList(new ArrayList<>());
    List<Supplier<Integer>> parts = new ArrayList<>();
    for (int p = 0; p < 5; p++) {
      int part = p;
      parts.add(() -> {
        order.add(part);
        return part * 10;
      });
    }
    assertEquals(List.of(0, 10, 20, 30, 40), IndependentRuns.run(new RunContext(1, () -> false), true, parts));
    assertEquals(List.of(0, 1, 2, 3, 4), order);
  }

  /** A node both inputs share runs once, though the inputs run side by side and ask for it at about once. */
  @Test void aSharedNodeRunsOnceForInputsSideBySide() {
    Keys keys = new Keys(true, null, 1, 2, 3);
    AtomicInteger runs = new AtomicInteger();
    keys.runs = runs;
    SharedNode shared = new SharedNode(keys, () -> 2);
    for (int round = 0; round < 20; round++) {
      runs.set(0);
      assertEquals(List.of("1,1", "2,2", "3,3"), rows(join(shared, shared).run(new RunContext(4, () -> false))));
      assertEquals(1, runs.get(), "round " + round);
    }
  }

  /** A failing part's exception reaches the caller as thrown, after the parts under way ended. */
  @Test void aFailingPartFailsTheRunAfterThePartsUnderWayEnded() {
    assumeTrue(MorselScheduler.THREADS > 1, "one core: parts run one after another");
    CountDownLatch otherStarted = new CountDownLatch(1);
    AtomicInteger ended = new AtomicInteger();
    List<Supplier<Integer>> parts = List.of(() -> {
      await(otherStarted);
      throw new IllegalStateException("part 0 failed");
    }, () -> {
      otherStarted.countDown();
      sleep(20);
      ended.incrementAndGet();
      return 1;
    });
    IllegalStateException thrown = assertThrows(IllegalStateException.class,
        () -> IndependentRuns.run(new RunContext(2, () -> false), true, parts));
    assertEquals("part 0 failed", thrown.getMessage());
    assertEquals(1, ended.get(), "the other part ended");
  }

  private static void await(CountDownLatch latch) {
    try {
      assertTrue(latch.await(20, TimeUnit.SECONDS), "the other part never started");
    } catch (InterruptedException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      throw new IllegalStateException(e);
    }
  }

  private static MaterializedJoinNode join(PlanNode left, PlanNode right) {
    return new MaterializedJoinNode(left, right, new EquiJoinKeys(new int[] {0}, new int[] {0}, TYPES, TYPES,
        Collections.singletonList(null), Collections.singletonList(null)), JoinKind.INNER,
        JoinChoice.cpu(JoinChoice.Algorithm.CPU_NOPA, false), DeviceRuns.NONE, "test join");
  }

  /** A node of one key column; it may wait for a latch, count its runs and how many such nodes run at once. */
  private static final class Keys implements PlanNode {
    private final boolean cpuOnly;
    private final CountDownLatch started;
    private final long[] keys;
    AtomicInteger runs = new AtomicInteger();
    AtomicInteger running = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();

    Keys(boolean cpuOnly, CountDownLatch started, long... keys) {
      this.cpuOnly = cpuOnly;
      this.started = started;
      this.keys = keys;
    }

    @Override public List<ExprType> types() {
      return TYPES;
    }

    @Override public boolean cpuOnly() {
      return cpuOnly;
    }

    @Override public NodeOutput run(RunContext context) {
      runs.incrementAndGet();
      most.accumulateAndGet(running.incrementAndGet(), Math::max);
      try {
        if (started != null) {
          started.countDown();
          assertTrue(started.await(20, TimeUnit.SECONDS), "the other input never started");
        }
        sleep(2);
        ColumnVector column = ColumnVector.ofLongs(ExprType.INT64, keys.clone(), null, keys.length);
        return new BatchOutput(List.of(new ColumnBatch(new ColumnVector[] {column}, keys.length)), TYPES);
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      } finally {
        running.decrementAndGet();
      }
    }
  }

  private static List<String> rows(NodeOutput output) {
    ColumnVector left = output.column(0);
    ColumnVector right = output.column(1);
    List<String> out = new ArrayList<>();
    for (int r = 0; r < output.rows(); r++) {
      out.add(left.longs[r] + "," + right.longs[r]);
    }
    Collections.sort(out);
    return out;
  }
}
