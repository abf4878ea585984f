package org.spillway.gpu.join.triton;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.CudaEvent;
import org.spillway.gpu.device.CudaStream;
import org.spillway.gpu.device.DeviceBuffer;
import org.spillway.gpu.join.GpuJoinStats;
import org.spillway.gpu.join.HostJoinInput;
import org.spillway.gpu.join.JoinOutput;
import org.spillway.gpu.join.JoinResult;
import org.spillway.gpu.join.JoinType;
import org.spillway.gpu.join.JoinWorkers;

/**
 * One execution of {@link TritonJoin}: its three phases, the buffers they take (all released by
 * {@link #close}, after both streams are idle, whether the join returned, failed or was cancelled) and the
 * statistics of the run.
 */
final class TritonRun implements AutoCloseable {
  /** Rows per first-pass block below which fewer blocks run (small inputs keep little padding). */
  static final int MIN_ROWS_PER_BLOCK = 4096;

  private final CudaDevice device;
  private final TritonOptions options;
  private final TritonSizing.Device facts;
  private final CudaStream[] streams;
  private final HierarchicalPartitioner pass1;
  private final SharedPartitioner pass2;
  private final TritonStream.Kernels kernels;
  private final JoinWorkers cpuWorkers;
  private final Deque<AutoCloseable> owned = new ArrayDeque<>();
  private final CudaEvent[] events = new CudaEvent[7];
  private final long wallStart = System.nanoTime();
  private GpuJoinStats stats;

  TritonRun(CudaDevice device, TritonOptions options, TritonSizing.Device facts, CudaStream[] streams,
      HierarchicalPartitioner pass1, SharedPartitioner pass2, TritonStream.Kernels kernels, JoinWorkers cpuWorkers) {
    this.device = device;
    this.options = options;
    this.facts = facts;
    this.streams = streams;
    this.pass1 = pass1;
    this.pass2 = pass2;
    this.kernels = kernels;
    this.cpuWorkers = cpuWorkers;
    for (int i = 0; i < events.length; i++) {
      events[i] = own(device.newEvent(true));
    }
  }

  GpuJoinStats stats() {
    return stats;
  }

  JoinResult execute(HostJoinInput build, HostJoinInput probe, JoinType type, JoinOutput output,
      BooleanSupplier cancelled) {
    long budget = options.budgetBytes() > 0 ? Math.min(options.budgetBytes(), device.allocator().availableBytes())
        : device.allocator().availableBytes();
    boolean payloads = output == JoinOutput.AGGREGATED;
    HierarchicalPartitioner.Input r = HierarchicalPartitioner.Input.of(device, build, payloads);
    HierarchicalPartitioner.Input s = HierarchicalPartitioner.Input.of(device, probe, payloads);
    CudaStream a = streams[0];

    // Phase 1: prefix sum over both key columns.
    int blocksR = pass1Blocks(r.rows());
    int blocksS = pass1Blocks(s.rows());
    long prefixStart = System.nanoTime();
    int[] hR;
    int[] hS;
    if (options.cpuPrefixSum()) {
      hR = CpuPrefixSum.histogram(build, blocksR, PartitionLayout.chunkRows(r.rows(), blocksR), cpuWorkers);
      hS = CpuPrefixSum.histogram(probe, blocksS, PartitionLayout.chunkRows(s.rows(), blocksS), cpuWorkers);
    } else {
      int[][] both = gpuHistograms(r, blocksR, s, blocksS);
      hR = both[0];
      hS = both[1];
    }
    long prefix = options.cpuPrefixSum() ? System.nanoTime() - prefixStart
        : millisToNanos(events[1].elapsedMillisSince(events[0]));
    checkCancelled(cancelled);

    TritonSizing.Plan plan = TritonSizing.plan(new TritonSizing.Demand(bins(hR, blocksR), bins(hS, blocksS), blocksR,
        blocksS, type != JoinType.INNER), facts, options, budget);
    int bits1 = plan.bits1();
    int fanout1 = 1 << bits1;
    PartitionLayout layoutR = PartitionLayout.of(PartitionLayout.coarsen(hR, blocksR,
        HierarchicalPartitioner.HISTOGRAM_BITS, bits1), blocksR, fanout1, PartitionLayout.PAD_TUPLES);
    PartitionLayout layoutS = PartitionLayout.of(PartitionLayout.coarsen(hS, blocksS,
        HierarchicalPartitioner.HISTOGRAM_BITS, bits1), blocksS, fanout1, PartitionLayout.PAD_TUPLES);

    // Phase 2: first partitioning pass into the cached / spilled partition arrays.
    PartitionArray arrayR = own(new PartitionArray(device, layoutR.totalTuples(), plan.cacheShare(),
        logPage(layoutR), "Triton build partitions"));
    PartitionArray arrayS = own(new PartitionArray(device, layoutS.totalTuples(), plan.cacheShare(),
        logPage(layoutS), "Triton probe partitions"));
    try (DeviceBuffer offR = DeviceArrays.upload(device, layoutR.blockMajorOffsets(), "Triton build pass-1 offsets");
         DeviceBuffer offS = DeviceArrays.upload(device, layoutS.blockMajorOffsets(), "Triton probe pass-1 offsets");
         DeviceBuffer l2 = device.allocator().allocate(HierarchicalPartitioner.l2PoolBytes(Math.max(blocksR, blocksS),
             bits1, plan.l2Tuples()), "Triton Hierarchical second-level buffers")) {
      events[2].record(a);
      pass1.partition(r, blocksR, PartitionLayout.chunkRows(r.rows(), blocksR), offR, arrayR, bits1, plan.l1Tuples(),
          plan.l2Tuples(), l2, a);
      pass1.partition(s, blocksS, PartitionLayout.chunkRows(s.rows(), blocksS), offS, arrayS, bits1, plan.l1Tuples(),
          plan.l2Tuples(), l2, a);
      events[3].record(a);
      a.synchronize();
    }
    checkCancelled(cancelled);

    // Phase 3: second pass and join per partition pair, on two streams.
    TritonStream.Partitioned pr = partitioned(arrayR, layoutR, "build");
    TritonStream.Partitioned ps = partitioned(arrayS, layoutS, "probe");
    TritonOutput out = own(new TritonOutput(device, output, s.rows() + 1024));
    TritonStream[] lanes = new TritonStream[2];
    for (int i = 0; i < 2; i++) {
      lanes[i] = own(new TritonStream(device, streams[i], kernels, pass2, plan, facts, options.tableCapacity(),
          type != JoinType.INNER));
    }
    long joinNanos = 0;
    long written = 0;
    int runs = 0;
    while (true) {
      runs++;
      out.reset(a);
      events[4].record(a);
      streams[1].waitFor(events[4]);
      for (int p = 0; p < fanout1; p++) {
        checkCancelled(cancelled);
        lanes[p % 2].enqueue(pr, ps, p, type, out);
      }
      events[5].record(streams[0]);
      events[6].record(streams[1]);
      joinNanos += millisToNanos(Math.max(events[5].elapsedMillisSince(events[4]),
          events[6].elapsedMillisSince(events[4])));
      long produced = out.producedRows();
      written += output == JoinOutput.MATERIALIZED ? Math.min(produced, out.capacity()) * 8 : 0;
      if (output != JoinOutput.MATERIALIZED || produced <= out.capacity()) {
        break;
      }
      out.grow(produced);  // the first run counted the rows: the second fits them
    }
    double share = (arrayR.cacheShare() * arrayR.tuples() + arrayS.cacheShare() * arrayS.tuples())
        / (arrayR.tuples() + arrayS.tuples());
    String variant = String.format(Locale.ROOT, "triton/bits=%d+%d/cache=%.2f", bits1, plan.bits2(), share);
    JoinResult result = out.result(variant, probe, type);
    long partition = millisToNanos(events[3].elapsedMillisSince(events[2]));
    long toDevice = (options.cpuPrefixSum() ? 0 : r.keyBytes() + s.keyBytes()) + r.passBytes() + s.passBytes()
        + runs * 16 * (spilled(arrayR, layoutR, false) + spilled(arrayS, layoutS, false));
    long toHost = 16 * (spilled(arrayR, layoutR, true) + spilled(arrayS, layoutS, true)) + written;
    stats = new GpuJoinStats(variant, prefix + partition + joinNanos, toDevice, toHost, List.of(
        new GpuJoinStats.Phase(options.cpuPrefixSum() ? "prefix sum (CPU)" : "prefix sum", prefix),
        new GpuJoinStats.Phase("pass 1", partition),
        new GpuJoinStats.Phase("pass 2 + join" + (runs > 1 ? " (" + runs + " runs)" : ""), joinNanos),
        new GpuJoinStats.Phase("wall clock, allocation included", System.nanoTime() - wallStart)));
    return result;
  }

  /** The prefix-sum histograms of both sides on the GPU (hierarchical_histogram), timed by events 0 and 1. */
  private int[][] gpuHistograms(HierarchicalPartitioner.Input r, int blocksR, HierarchicalPartitioner.Input s,
      int blocksS) {
    CudaStream a = streams[0];
    int countR = blocksR << HierarchicalPartitioner.HISTOGRAM_BITS;
    int countS = blocksS << HierarchicalPartitioner.HISTOGRAM_BITS;
    try (DeviceBuffer histR = DeviceArrays.zeroed(device, 4L * countR, "Triton build histogram", a);
         DeviceBuffer histS = DeviceArrays.zeroed(device, 4L * countS, "Triton probe histogram", a)) {
      events[0].record(a);
      pass1.histogram(r, blocksR, PartitionLayout.chunkRows(r.rows(), blocksR), histR, a);
      pass1.histogram(s, blocksS, PartitionLayout.chunkRows(s.rows(), blocksS), histS, a);
      events[1].record(a);
      a.synchronize();
      return new int[][] {DeviceArrays.downloadInts(histR, countR), DeviceArrays.downloadInts(histS, countS)};
    }
  }

  private int pass1Blocks(long rows) {
    long wanted = Math.max(1, (rows + MIN_ROWS_PER_BLOCK - 1) / MIN_ROWS_PER_BLOCK);
    return options.pass1Blocks() > 0 ? options.pass1Blocks() : (int) Math.min(facts.multiprocessors(), wanted);
  }

  private int logPage(PartitionLayout layout) {
    return options.logPageTuples() > 0 ? options.logPageTuples()
        : PartitionArray.automaticLogPage(layout.totalTuples());
  }

  /** Tuples the first pass wrote to spilled pages (written) or the join phase reads from them. */
  private static long spilled(PartitionArray array, PartitionLayout layout, boolean written) {
    long n = 0;
    for (int b = 0; b < layout.blocks(); b++) {
      for (int p = 0; p < layout.fanout(); p++) {
        long end = layout.offset(b, p) + layout.count(b, p);
        n += array.spilledTuples(written ? layout.flushStart(b, p) : layout.offset(b, p), end);
      }
    }
    return n;
  }

  private TritonStream.Partitioned partitioned(PartitionArray array, PartitionLayout layout, String side) {
    return new TritonStream.Partitioned(array, layout,
        own(DeviceArrays.upload(device, layout.partitionMajorOffsets(), "Triton " + side + " region offsets")),
        own(DeviceArrays.upload(device, layout.regionPrefix(), "Triton " + side + " region prefix")));
  }

  /** Totals per histogram bin over all blocks. */
  private static long[] bins(int[] histogram, int blocks) {
    long[] out = new long[1 << HierarchicalPartitioner.HISTOGRAM_BITS];
    for (int i = 0; i < histogram.length; i++) {
      out[i & (out.length - 1)] += histogram[i];
    }
    return out;
  }

  private static long millisToNanos(float millis) {
    return Math.round(millis * 1e6);
  }

  private static void checkCancelled(BooleanSupplier cancelled) {
    if (cancelled.getAsBoolean()) {
      throw new CancellationException("query cancelled");
    }
  }

  private <T extends AutoCloseable> T own(T resource) {
    owned.push(resource);
    return resource;
  }

  @Override
  public void close() {
    List<Throwable> failures = new ArrayList<>();
    for (CudaStream stream : streams) {
      try {
        stream.synchronize();  // nothing may still run on a buffer about to be freed
      } catch (RuntimeException e) {
        failures.add(e);
      }
    }
    while (!owned.isEmpty()) {
      try {
        owned.pop().close();
      } catch (Exception e) {
        failures.add(e);
      }
    }
    if (!failures.isEmpty()) {
      RuntimeException e = new IllegalStateException("TritonJoin failed to release its buffers: " + failures.get(0),
          failures.get(0));
      failures.stream().skip(1).forEach(e::addSuppressed);
      throw e;
    }
  }
}
