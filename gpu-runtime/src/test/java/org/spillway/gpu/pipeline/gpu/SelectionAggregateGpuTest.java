package org.spillway.gpu.pipeline.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.spillway.gpu.GpuTest;
import org.spillway.gpu.RandomColumns;
import org.spillway.gpu.bench.PipelineWorkloads;
import org.spillway.gpu.pipeline.PipelineStage;
import org.spillway.gpu.pipeline.RandomBatches;
import org.spillway.gpu.pipeline.SourceBatch;
import org.spillway.gpu.transfer.TransferMethod;
import org.spillway.gpu.transfer.TransferOptions;

/**
 * The selection_aggregate kernels (Q6's shape) against the CPU backend and the interpreter on fresh random
 * lineitem batches of ragged sizes, under both filter variants, pinned copy and zero-copy, with random
 * predicate ranges from selecting nothing to everything, and their overflow errors.
 */
@GpuTest
class SelectionAggregateGpuTest {
  private static final TransferOptions SMALL_CHUNKS = TransferOptions.DEFAULT.withChunkBytes(16 << 10);

  private BufferAllocator allocator;
  private RandomBatches data;

  @BeforeEach void open() {
    allocator = RandomColumns.allocatorFor(TransferMethod.PINNED_COPY);
    data = new RandomBatches(allocator);
  }

  @AfterEach void close() {
    data.close();
    allocator.close();
  }

  static Stream<Arguments> variants() {
    return Stream.of(Arguments.of(TransferMethod.PINNED_COPY, FilterVariant.BRANCHING),
        Arguments.of(TransferMethod.PINNED_COPY, FilterVariant.PREDICATION),
        Arguments.of(TransferMethod.ZERO_COPY, FilterVariant.BRANCHING),
        Arguments.of(TransferMethod.ZERO_COPY, FilterVariant.PREDICATION));
  }

  @ParameterizedTest
  @MethodSource("variants")
  void randomQ6PipelinesMatchTheCpuAndTheInterpreter(TransferMethod method, FilterVariant variant) {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    List<SourceBatch> batches = new ArrayList<>();
    for (int rows : new int[] {1, 1023, 1025, 70_000, 5000}) {
      batches.addAll(PipelineWorkloads.lineitem(allocator, rows, random.nextLong(), data.owned()));
    }
    for (int i = 0; i < 12; i++) {
      long from = PipelineWorkloads.day(1992, 1, 1) + random.nextInt(2600);
      long to = from + random.nextInt(i % 4 == 0 ? 3000 : 400);
      long discount = random.nextInt(12) - 1;
      List<PipelineStage> stages = PipelineWorkloads.q6(from, to, discount, discount + random.nextInt(4),
          random.nextInt(5200));
      String where = "seed " + seed + ", query " + i + ", " + method + ", " + variant + ", " + stages.get(0);
      GpuColumnarPipeline gpu = new GpuColumnarPipeline(PipelineWorkloads.LINEITEM_TYPES, stages)
          .withFilterVariant(variant).withTransferOptions(SMALL_CHUNKS);
      List<Object[]> rows = RandomBatches.assertSameResult(gpu, method, batches, where, null);
      assertTrue(gpu.lastRun().kernel().endsWith("selection_aggregate_" + variant.label()),
          gpu.lastRun().kernel());
      List<Object[]> interpreted = RandomBatches.rowsOf(RandomBatches.run(gpu.withSelectionKernel(false), method,
          batches));
      assertTrue(gpu.lastRun().kernel().contains("columnar_pipeline_global"), gpu.lastRun().kernel());
      RandomBatches.assertSameRows(rows, interpreted, where + " (interpreter)");
    }
  }

  /** A product that overflows fails as on the CPU, but only for rows that the filter keeps. */
  @Test void overflowOfSelectedRowsFailsAndOfRejectedRowsDoesNot() {
    List<SourceBatch> batches = PipelineWorkloads.lineitem(allocator, 4000, System.nanoTime(), data.owned());
    BigIntVector price = (BigIntVector) batches.get(0).columns().get(2);
    price.set(3999, Long.MAX_VALUE / 3);
    long ship = ((DateDayVector) batches.get(0).columns().get(0)).get(3999);
    long discount = ((BigIntVector) batches.get(0).columns().get(3)).get(3999);
    long quantity = ((BigIntVector) batches.get(0).columns().get(1)).get(3999);
    for (FilterVariant variant : FilterVariant.values()) {
      for (boolean selected : new boolean[] {true, false}) {
        long from = selected ? ship : ship + 1;
        List<PipelineStage> stages = PipelineWorkloads.q6(from, from + 400, Math.min(discount, 4),
            Math.max(discount, 4), quantity + 1);
        GpuColumnarPipeline gpu = new GpuColumnarPipeline(PipelineWorkloads.LINEITEM_TYPES, stages)
            .withFilterVariant(variant);
        if (selected && discount > 3) {  // price * discount overflows only for a discount of at least 0.04
          ArithmeticException cpu = assertThrows(ArithmeticException.class,
              () -> gpu.cpuPipeline().run(batches, 2, () -> false));
          ArithmeticException e = assertThrows(ArithmeticException.class,
              () -> RandomBatches.run(gpu, TransferMethod.PINNED_COPY, batches));
          assertTrue(e.getMessage().startsWith(cpu.getMessage()), e.getMessage() + " vs " + cpu.getMessage());
        } else {
          RandomBatches.assertSameResult(gpu, TransferMethod.PINNED_COPY, batches, variant + ", selected " + selected,
              null);
        }
      }
    }
    assertEquals(4000, batches.get(0).rows());
  }
}
