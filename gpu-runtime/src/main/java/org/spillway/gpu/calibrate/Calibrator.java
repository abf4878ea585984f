package org.spillway.gpu.calibrate;

import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.spillway.gpu.bench.MethodTimer;
import org.spillway.gpu.bench.RandomFill;
import org.spillway.gpu.device.ArrowAllocators;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.CudaException;
import org.spillway.gpu.device.DeviceAllocator;
import org.spillway.gpu.device.DeviceBuffer;
import org.spillway.gpu.device.GpuRuntime;
import org.spillway.gpu.device.HostBuffer;
import org.spillway.gpu.device.HostMemoryKind;
import org.spillway.gpu.device.HostPointer;
import org.spillway.gpu.ops.CpuColumnSum;
import org.spillway.gpu.ops.SumResult;
import org.spillway.gpu.transfer.ColumnType;
import org.spillway.gpu.transfer.HostColumn;
import org.spillway.gpu.transfer.TransferMethod;
import org.spillway.gpu.transfer.TransferOptions;
import org.spillway.gpu.transfer.TransferSupport;

/**
 * Measures this machine for the cost model (the {@code spillway calibrate} command): CPU scan
 * bandwidth, and with a GPU, every transfer method, raw pinned copy, reads over the link at 4-512 B
 * granularity (sequential and random), kernel writes to host memory, GPU memory bandwidth and the fixed cost
 * of a GPU pipeline run; the CPU backend's rate on a Q6-shaped pipeline and the CPU joins' rates; and the index
 * join's lookup rates (CPU index lookups, random line reads over the link within and beyond the GPU's TLB reach).
 */
public final class Calibrator {
  /** Access granularities of the link read probes, in bytes. */
  public static final int[] GRANULARITIES = {4, 8, 16, 32, 64, 128, 256, 512};
  /**
   * Bytes of the random link reads the join cost model charges (NOPA's table in host memory: a random 8-byte key
   * per insert and probe); a calibration that measures only what the cost models read probes no other link read.
   */
  public static final int COST_MODEL_RANDOM_READ_BYTES = 8;
  /**
   * Least CPU input of the pipeline probe: on less, the runs are too short for the JIT and the pool to reach the
   * speed queries see (a first-use calibration on 128 MiB measured the H200 host's pipeline rate at about a third).
   */
  static final long MIN_CPU_PIPELINE_BYTES = 512L << 20;

  private Calibrator() {}

  /** Measures what this machine has; without a GPU, a CPU-only profile that says why. */
  public static MachineProfile calibrate(CalibrationOptions opts, PrintStream progress) {
    var device = GpuRuntime.device();
    if (device.isEmpty()) {
      progress.println("no GPU (" + GpuRuntime.unavailableReason() + "): writing a CPU-only profile");
      return cpuOnly(opts, progress, GpuRuntime.unavailableReason());
    }
    return withGpu(device.get(), opts, progress);
  }

  static MachineProfile cpuOnly(CalibrationOptions opts, PrintStream progress, String reason) {
    double cpu = cpuScan(opts, progress);
    double cpuPipeline = CpuPipelineProbe.gbPerSecond(Math.max(opts.cpuScanBytes(), MIN_CPU_PIPELINE_BYTES),
        opts.reps(), progress);
    Map<String, Double> cpuJoins = CpuJoinProbe.tuplesPerSecond(opts.cpuScanBytes(), opts.reps(), progress);
    MachineProfile.IndexLookupRates lookups = IndexLookupProbe.measure(opts.cpuScanBytes(), opts.reps(),
        IndexLookupProbe.LinkRates.NONE, progress);
    return new MachineProfile(MachineProfile.FORMAT_VERSION, Instant.now().toString(), hostName(), cores(), cpu,
        null, reason, Map.of(), Map.of(), null, List.of(), null, null, null, cpuPipeline, cpuJoins, opts.mode(), null,
        lookups);
  }

  private static MachineProfile withGpu(CudaDevice device, CalibrationOptions opts, PrintStream progress) {
    progress.println("calibrating " + device + " and " + cores() + " CPU cores");
    double cpu = cpuScan(opts, progress);
    double cpuPipeline = CpuPipelineProbe.gbPerSecond(Math.max(opts.cpuScanBytes(), MIN_CPU_PIPELINE_BYTES),
        opts.reps(), progress);
    Map<String, Double> cpuJoins = CpuJoinProbe.tuplesPerSecond(opts.cpuScanBytes(), opts.reps(), progress);
    Map<String, Double> methods = new LinkedHashMap<>();
    Map<String, String> unsupported = new LinkedHashMap<>();
    double[] raw = {Double.NaN};
    for (HostMemoryKind kind : List.of(HostMemoryKind.PINNED, HostMemoryKind.PAGEABLE, HostMemoryKind.MANAGED)) {
      List<TransferMethod> group = new ArrayList<>();
      for (TransferMethod m : TransferMethod.values()) {
        TransferSupport s = m.support(device);
        if (m.nativeMemory() != kind) {
          continue;
        } else if (s.supported()) {
          group.add(m);
        } else {
          unsupported.put(m.label(), s.reason());
          progress.printf("  %-16s unsupported: %s%n", m.label(), s.reason());
        }
      }
      timeMethods(device, kind, group, opts, progress, methods, raw);
    }
    List<MachineProfile.LinkAccess> reads = new ArrayList<>();
    double[] write = {Double.NaN};
    double[] gpuMemory = {Double.NaN};
    IndexLookupProbe.LinkRates lines = probeLink(device, opts, progress, reads, write, gpuMemory);
    MachineProfile.IndexLookupRates lookups = IndexLookupProbe.measure(opts.cpuScanBytes(), opts.reps(), lines,
        progress);
    double pipelineRun = PipelineRunProbe.runMillis(device, opts.reps() * 4, progress);
    double rowsNanos = PipelineRunProbe.rowsNanosPerRow(device, opts.reps(), progress);
    var gpu = new MachineProfile.GpuInfo(device.name(), device.totalMemory(), device.allocator().budget(),
        device.multiprocessors(), device.pageableMemoryAccess());
    return new MachineProfile(MachineProfile.FORMAT_VERSION, Instant.now().toString(), hostName(), cores(), cpu, gpu,
        null, methods, unsupported, raw[0], reads, write[0], gpuMemory[0], pipelineRun, cpuPipeline,
        cpuJoins, opts.mode(), rowsNanos, lookups);
  }

  /** Streams one column of {@code kind} memory with each method of the group; the pinned group also times raw copy. */
  private static void timeMethods(CudaDevice device, HostMemoryKind kind, List<TransferMethod> group,
      CalibrationOptions opts, PrintStream progress, Map<String, Double> out, double[] raw) {
    if (group.isEmpty()) {
      return;
    }
    long rows = opts.methodBytes() / 8;
    try (BufferAllocator allocator = ArrowAllocators.root(kind);
         ArrowBuf buf = allocator.buffer(rows * 8);
         CpuColumnSum cpu = new CpuColumnSum()) {
      RandomFill.fill(buf.memoryAddress(), ColumnType.INT64, rows, kind.ordinal() + 17L);
      List<HostColumn> columns = List.of(HostColumn.of("calibration", ColumnType.INT64, buf, rows));
      List<SumResult> expected = List.of(cpu.sum(columns.get(0)));
      if (kind == HostMemoryKind.PINNED) {
        raw[0] = MethodTimer.median(MethodTimer.rawPinnedCopy(device, columns, opts.reps()));
        progress.printf("  %-16s %7.2f GB/s%n", "raw pinned copy", raw[0]);
      }
      for (TransferMethod m : group) {
        double gbs = MethodTimer.time(device, m, TransferOptions.DEFAULT, columns, expected, opts.reps())
            .medianGbPerSecond();
        out.put(m.label(), gbs);
        progress.printf("  %-16s %7.2f GB/s%n", m.label(), gbs);
      }
    }
  }

  /** The link probes; returns the index join's random line reads within and beyond the TLB's reach. */
  private static IndexLookupProbe.LinkRates probeLink(CudaDevice device, CalibrationOptions opts,
      PrintStream progress, List<MachineProfile.LinkAccess> reads, double[] write, double[] gpuMemory) {
    long bytes = opts.probeBytes();
    try (HostBuffer host = device.pinnedAllocator().allocate(bytes);
         DeviceBuffer onGpu = device.allocator().allocate(bytes, "calibration probe");
         LinkProbe probe = new LinkProbe(device)) {
      RandomFill.fill(host.address(), ColumnType.INT64, bytes / 8, 99);
      long mapped = HostMemoryKind.mappedDeviceAddress(device, host.address());
      for (int g : GRANULARITIES) {
        for (boolean random : new boolean[] {false, true}) {
          if (!opts.everyLinkRead() && !(random && g == COST_MODEL_RANDOM_READ_BYTES)) {
            continue;
          }
          // Random reads of small granules are slow: fewer of them keep each probe well under a second.
          long accesses = random ? bytes / Math.max(g, 32) : bytes / g;
          double s = probe.readSeconds(mapped, bytes, g, random, accesses, opts.reps());
          var access = new MachineProfile.LinkAccess(random ? "random" : "sequential", g, accesses * g / s / 1e9,
              accesses / s);
          reads.add(access);
          progress.printf("  link read %-10s %3d B: %7.2f GB/s, %6.1f M accesses/s%n", access.pattern(), g,
              access.gbPerSecond(), access.accessesPerSecond() / 1e6);
        }
      }
      write[0] = bytes / probe.writeSeconds(mapped, bytes, opts.reps()) / 1e9;
      progress.printf("  host write (zero-copy stores): %7.2f GB/s%n", write[0]);
      CudaException.check(cuMemcpyHtoD(onGpu.pointer(), new HostPointer(host.address()), bytes), "cuMemcpyHtoD");
      gpuMemory[0] = bytes / probe.readSeconds(onGpu.address(), bytes, 16, false, bytes / 16, opts.reps()) / 1e9;
      progress.printf("  GPU memory read: %7.2f GB/s%n", gpuMemory[0]);
      return IndexLookupProbe.link(device, probe, bytes, opts.tlbProbeBytes(), opts.reps(), progress);
    }
  }

  /**
   * CPU backend scan of a pageable INT64 column with all cores, by wall clock (median), after as many untimed runs as
   * the CPU pipeline probe's: with one, quick calibrations on first use of two H200 hosts measured 5.3 and 11.3 GB/s
   * where the same hosts' other quick calibrations measured 39.9 and 31.6.
   */
  private static double cpuScan(CalibrationOptions opts, PrintStream progress) {
    long rows = opts.cpuScanBytes() / 8;
    double[] gbs = new double[opts.reps()];
    try (BufferAllocator allocator = ArrowAllocators.root(HostMemoryKind.PAGEABLE);
         ArrowBuf buf = allocator.buffer(rows * 8);
         CpuColumnSum cpu = new CpuColumnSum()) {
      RandomFill.fill(buf.memoryAddress(), ColumnType.INT64, rows, 7);
      HostColumn column = HostColumn.of("cpu scan", ColumnType.INT64, buf, rows);
      for (int r = -CpuPipelineProbe.WARMUP_RUNS; r < opts.reps(); r++) {
        long t0 = System.nanoTime();
        cpu.sum(column);
        if (r >= 0) {
          gbs[r] = rows * 8 / (double) (System.nanoTime() - t0);
        }
      }
    }
    double median = MethodTimer.median(gbs);
    progress.printf("  CPU scan (%d threads): %7.2f GB/s%n", cores(), median);
    return median;
  }

  private static int cores() {
    return Runtime.getRuntime().availableProcessors();
  }

  private static String hostName() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (IOException e) {
      return "unknown";
    }
  }

  /**
   * {@code Calibrator [--out FILE] [--quick] [--tlb-probe SIZE]}: measures and writes the profile (default
   * ~/.spillway/...); {@code --tlb-probe} sets the pinned region beyond the GPU's TLB reach (e.g. 32g; 0: not
   * measured), which a quick calibration leaves out otherwise.
   */
  public static void main(String[] args) throws IOException {
    Path out = CalibrationOptions.defaultProfilePath();
    CalibrationOptions opts = CalibrationOptions.FULL;
    Long tlbProbe = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--quick" -> opts = CalibrationOptions.QUICK;
        case "--out" -> out = Path.of(value(args, ++i));
        case "--tlb-probe" -> {
          String size = value(args, ++i);
          tlbProbe = size.trim().equals("0") ? 0 : DeviceAllocator.parseBytes("--tlb-probe", size);
        }
        default -> throw new IllegalArgumentException("unknown option " + args[i]
            + " (known: --out FILE, --quick, --tlb-probe SIZE)");
      }
    }
    if (tlbProbe != null) {
      opts = new CalibrationOptions(opts.mode(), opts.methodBytes(), opts.probeBytes(), opts.cpuScanBytes(),
          opts.reps(), opts.everyLinkRead(), tlbProbe);
    }
    MachineProfile profile = calibrate(opts, System.out);
    profile.write(out);
    System.out.println("machine profile written to " + out + " (" + opts.mode()
        + (profile.cpuOnly() ? ", CPU only)" : ")"));
  }

  private static String value(String[] args, int i) {
    if (i >= args.length) {
      throw new IllegalArgumentException(args[i - 1] + " needs a value");
    }
    return args[i];
  }
}
