package org.spillway.adapter;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.WeakHashMap;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.spillway.gpu.GpuRuntime;
import org.spillway.gpu.cuda.CudaDevice;
import org.spillway.gpu.exec.GpuColumnarPipeline;
import org.spillway.gpu.transfer.TransferMethod;

/**
 * Which backend runs a pipeline over a table scan, and why: the GPU when the table's device setting allows
 * it, a CUDA device is present and {@link GpuColumnarPipeline} supports the pipeline; otherwise the CPU
 * backend, with the reason when the GPU was asked for. {@link SpillwayRel.Implementor} decides once per
 * pipeline and records the choice under its scan, so that every node of the pipeline shows the same device in
 * EXPLAIN. Pipelines over a join's output and the nodes above a join run on the CPU (see SpillwayJoin for joins).
 */
record SpillwayBackend(boolean gpu, TransferMethod method, String reason) {
  /** System property forcing the transfer method of GPU pipelines (e.g. "zero-copy", "pinned copy"). */
  static final String TRANSFER_PROPERTY = "spillway.gpu.transfer";

  private static final SpillwayBackend CPU = new SpillwayBackend(false, null, null);
  private static final Map<SpillwayTableScan, SpillwayBackend> CHOSEN = new WeakHashMap<>();

  /** The device label EXPLAIN shows. */
  String device() {
    return gpu ? "gpu" : "cpu";
  }

  /** The transfer method label EXPLAIN shows ("none": the CPU backend reads host memory in place). */
  String transfer() {
    return gpu ? method.label() : "none";
  }

  /** Decides for the pipeline over {@code scan} and remembers the choice for the nodes above the scan. */
  static SpillwayBackend choose(SpillwayTableScan scan, GpuColumnarPipeline pipeline) {
    SpillwayBackend backend = decide(scan, pipeline);
    synchronized (CHOSEN) {
      CHOSEN.put(scan, backend);
    }
    return backend;
  }

  /** The choice recorded for the subtree of {@code scan}; the CPU backend until the implementor decided. */
  static SpillwayBackend of(SpillwayTableScan scan) {
    synchronized (CHOSEN) {
      return CHOSEN.getOrDefault(scan, CPU);
    }
  }

  private static SpillwayBackend decide(SpillwayTableScan scan, GpuColumnarPipeline pipeline) {
    SpillwayDevice wanted = scan.spillwayTable().device();
    if (wanted == SpillwayDevice.CPU) {
      return CPU;
    }
    Optional<CudaDevice> device = GpuRuntime.device();
    if (device.isEmpty()) {
      // AUTO on a machine without a GPU is the ordinary CPU case and needs no explanation.
      return wanted == SpillwayDevice.GPU
          ? new SpillwayBackend(false, null, "no usable CUDA device: " + GpuRuntime.unavailableReason()) : CPU;
    }
    Optional<String> unsupported = pipeline.unsupportedReason();
    if (unsupported.isPresent()) {
      return new SpillwayBackend(false, null, "not supported on the GPU: " + unsupported.get());
    }
    TransferMethod method;
    try {
      method = transferMethod(device.get(), scan);
    } catch (IllegalArgumentException e) {
      return new SpillwayBackend(false, null, e.getMessage());
    }
    return new SpillwayBackend(true, method, null);
  }

  /** The forced method if {@link #TRANSFER_PROPERTY} is set, else the one suited to the table's memory. */
  private static TransferMethod transferMethod(CudaDevice device, SpillwayTableScan scan) {
    String forced = System.getProperty(TRANSFER_PROPERTY);
    if (forced != null && !forced.isBlank()) {
      return TransferMethod.parse(forced);
    }
    List<VectorSchemaRoot> batches = scan.spillwayTable().stored().batches();
    int[] fields = scan.fields();
    if (batches.isEmpty() || fields.length == 0) {
      return TransferMethod.PINNED_COPY;  // nothing to stream; the label only shows in EXPLAIN
    }
    long address = batches.get(0).getVector(fields[0]).getDataBuffer().memoryAddress();
    return GpuColumnarPipeline.defaultMethod(device, address);
  }
}
