package org.spillway.gpu.plan;

import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.GpuRuntime;
import org.spillway.gpu.device.HostBuffer;
import org.spillway.gpu.device.HostCopy;
import org.spillway.gpu.device.HostMemoryKind;
import org.spillway.gpu.pipeline.gpu.PinnedScratch;
import org.spillway.gpu.join.GpuEquiJoin;
import org.spillway.gpu.join.HostJoinInput;
import org.spillway.gpu.join.JoinOutput;
import org.spillway.gpu.join.JoinResult;
import org.spillway.gpu.join.JoinType;
import org.spillway.gpu.join.keys.JoinKeys;
import org.spillway.gpu.transfer.ColumnType;
import org.spillway.gpu.transfer.HostColumn;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Runs a GPU equi-join, configured as the planner's {@link GpuJoinSpec} says by the installed
 * {@link GpuJoinFactory}, over keys in pinned host memory, which GPU joins read directly: a bare scan's key column in place when it is one pinned Arrow buffer, else a copy
 * into pooled pinned buffers ({@link PinnedScratch}: pinning fresh memory per join cost as much as the copy),
 * given back when the join returns or throws.
 */
final class GpuJoinRun implements AutoCloseable {
  private final CudaDevice device;
  private final List<HostBuffer> buffers = new ArrayList<>();
  /** Time spent building key columns from the sides' rows, and copying them into pinned memory. */
  private long gatherNanos;
  private long stageNanos;

  private GpuJoinRun(CudaDevice device) {
    this.device = device;
  }

  /** A join's result and where it ran, with the bytes it moved over the link. */
  record Joined(JoinResult result, OperatorReport.Execution execution) {}

  /**
   * Joins build and probe keys (row ids out) with the GPU join {@code spec} describes. The link carries at least
   * the keys (and their validity bitmaps) there and the row-id pairs back; a join whose table lives in host memory
   * moves more, which only the join itself could count.
   */
  static Joined join(GpuJoinSpec spec, Side build, Side probe, JoinType type, BooleanSupplier cancelled) {
    CudaDevice device = GpuRuntime.requireDevice();
    long start = System.nanoTime();
    try (GpuJoinRun run = new GpuJoinRun(device);
         GpuEquiJoin join = GpuJoins.factory().create(device, spec)) {
      long setUp = System.nanoTime();
      HostJoinInput b = run.input(device, "build", build);
      HostJoinInput p = run.input(device, "probe", probe);
      long staged = System.nanoTime();
      JoinResult result = join.join(b, p, type, JoinOutput.MATERIALIZED, cancelled);
      // where a GPU join's time goes on the host, for the cost model's sake (it prices only the device and the link)
      RunContext.trace("  gpu join phases: setup %.1f ms, keys gathered %.1f ms, staged %.1f ms, join %.1f ms",
          (setUp - start) / 1e6, run.gatherNanos / 1e6, run.stageNanos / 1e6, (System.nanoTime() - staged) / 1e6);
      return new Joined(result, OperatorReport.Execution.gpu(bytes(b) + bytes(p),
          result.rowCount() * 2L * Integer.BYTES));
    }
  }

  /** The bytes of a side's keys and their validity bitmap. */
  private static long bytes(HostJoinInput input) {
    return input.keys().byteLength() + (input.hasNulls() ? (input.rows() + 7) / 8 : 0);
  }

  /**
   * One side of the join: its columns, its key columns and their encoded key (encoded when asked for);
   * {@code keyAsIs} where the key is the single key column as it is, which may be read in place.
   */
  record Side(NodeOutput columns, int[] keyColumns, boolean keyAsIs, Supplier<JoinKeys> key) {}

  private HostJoinInput input(CudaDevice device, String role, Side side) {
    HostJoinInput inPlace = inPlace(device, role, side);
    if (inPlace != null) {
      return inPlace;
    }
    long start = System.nanoTime();
    JoinKeys key = side.key().get();
    long gathered = System.nanoTime();
    HostJoinInput staged = copy(role, key);
    gatherNanos += gathered - start;
    stageNanos += System.nanoTime() - gathered;
    return staged;
  }

  /** The key column of a bare scan of one pinned Arrow batch, as it is (no copy), or null. */
  private static HostJoinInput inPlace(CudaDevice device, String role, Side side) {
    if (!side.keyAsIs() || !(side.columns() instanceof ArrowScanOutput arrow)) {
      return null;
    }
    List<FieldVector> vectors = arrow.vectors(side.keyColumns()[0]);
    if (vectors.size() != 1 || !(vectors.get(0) instanceof BaseFixedWidthVector vector)
        || vector.getTypeWidth() != 4 && vector.getTypeWidth() != 8
        || HostMemoryKind.of(device, vector.getDataBuffer().memoryAddress()) != HostMemoryKind.PINNED) {
      return null;
    }
    ColumnType type = vector.getTypeWidth() == 4 ? ColumnType.INT32 : ColumnType.INT64;
    long validity = vector.getNullCount() == 0 ? 0 : vector.getValidityBuffer().memoryAddress();
    return new HostJoinInput(HostColumn.of(role + " key " + vector.getName(), type, vector.getDataBuffer(),
        vector.getValueCount()), null, validity);
  }

  /** The key copied into pinned memory as INT64, with its validity bitmap where it has NULLs. */
  private HostJoinInput copy(String role, JoinKeys key) {
    long[] keys = key.keys();
    HostBuffer data = allocate(keys.length * 8L);
    HostCopy.put(data.address(), keys, 0, keys.length);
    long validity = 0;
    if (key.validity() != null) {
      HostBuffer bits = allocate(key.validity().length * 8L);
      HostCopy.put(bits.address(), key.validity(), 0, key.validity().length);  // little-endian: Arrow's bit order
      validity = bits.address();
    }
    return new HostJoinInput(new HostColumn(role + " keys", ColumnType.INT64, data.address(), keys.length), null,
        validity);
  }

  private HostBuffer allocate(long bytes) {
    HostBuffer buffer = PinnedScratch.acquire(device, Math.max(8, bytes));
    buffers.add(buffer);
    return buffer;
  }

  @Override public void close() {
    buffers.forEach(buffer -> PinnedScratch.release(device, buffer));
    buffers.clear();
  }
}
