package org.spillway.adapter;

import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelWriter;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.Sort;
import org.apache.calcite.rel.core.TableScan;
import org.apache.calcite.rel.metadata.RelMetadataQuery;
import org.apache.calcite.sql.SqlExplainLevel;
import org.spillway.gpu.calibrate.MachineProfile;
import org.spillway.gpu.calibrate.MachineProfiles;
import org.spillway.gpu.vector.ExprType;

import java.util.List;
import java.util.Optional;
import java.util.Locale;

/**
 * The execution choices every Spillway node shows in EXPLAIN: device, algorithm variant, transfer method
 * and the bytes its input columns would move over the host-to-GPU link (rows x column widths). Device, the
 * filter variant and transfer method are those chosen for the pipeline over the node's scan
 * ({@link SpillwayBackend}); where the cost model was asked, every node also shows its predicted times
 * ({@code cost}), a filter the selectivity the model assumed, and the scan whether the machine profile is
 * assumed rather than measured, or measured by a quick calibration, and the GPU column cache it reads through.
 */
final class SpillwayExplain {
  private SpillwayExplain() {}

  /** Describes {@code node}, whose variant is {@code cpuVariant} on the CPU and {@code gpuVariant} on the GPU. */
  static RelWriter describe(RelWriter pw, RelNode node, String cpuVariant, String gpuVariant, double rows,
      List<SpillwayField> columns) {
    if (pw.getDetailLevel() == SqlExplainLevel.DIGEST_ATTRIBUTES) {
      return pw;  // digests identify nodes while planning; estimates must not change identities (or cost time)
    }
    SpillwayBackend backend = backendOf(node);
    boolean filter = node instanceof Filter;
    String variant = !backend.gpu() ? cpuVariant : filter ? backend.variant().label() : gpuVariant;
    SpillwayCostModel.Estimate costing = backend.costing();
    boolean scan = node instanceof TableScan;
    boolean cache = scan && backend.cacheBytes() > 0;
    String profile = scan && costing != null ? profileLabel(costing) : "";
    return pw.item("device", backend.device())
        .item("variant", variant)
        .item("transfer", backend.transfer())
        .itemIf("coprocess", backend.coprocessor(), backend.coprocess())
        .item("linkBytes", linkBytes(rows, columns))
        .itemIf("cost", costing == null ? "" : costing.label(), costing != null)
        .itemIf("selectivity", String.format(Locale.ROOT, "%.4f", backend.selectivity()), filter && costing != null)
        .itemIf("profile", profile, !profile.isEmpty())
        .itemIf("gpuCache", cache ? cacheLabel(backend) : "", cache);
  }

  /** The backend of the pipeline that runs {@code node} (the CPU's where none was chosen). */
  static SpillwayBackend backendOf(RelNode node) {
    return aboveGpuRows(node) ? SpillwayBackend.of(null)
        : pipelineScanOf(node).map(SpillwayBackend::of).orElseGet(() -> SpillwayBackend.of(null));
  }

  /**
   * The groups the planner expects of {@code aggregate} where a GPU pipeline runs it as its aggregation (the one
   * nearest its scan, whose hash table they size), or 0.
   */
  static long gpuGroups(SpillwayAggregate aggregate) {
    SpillwayBackend backend = backendOf(aggregate);
    if (!backend.gpu()) {
      return 0;
    }
    for (RelNode rel = aggregate.getInput().stripped(); rel.getInputs().size() == 1; rel = rel.getInput(0).stripped()) {
      if (rel instanceof org.apache.calcite.rel.core.Aggregate) {
        return 0;  // an aggregation of the GPU's groups
      }
    }
    return backend.groups();
  }

  /**
   * The scan whose pipeline runs {@code node}: down its single inputs and, through a join that a GPU pipeline probes,
   * down the probe side (the stages above such a join run in the probe side's pipeline, on its device), but not past
   * a sort.
   */
  private static Optional<SpillwayTableScan> pipelineScanOf(RelNode node) {
    Optional<SpillwayTableScan> scan = SpillwayFields.scanOf(node);
    RelNode rel = node;
    while (scan.isEmpty() && rel != null) {
      while (rel.getInputs().size() == 1 && !(rel instanceof Sort)) {  // a sort ends the pipeline below it
        rel = rel.getInput(0).stripped();
      }
      rel = rel instanceof SpillwayJoin join ? join.gpuProbedInput() : null;
      scan = rel == null ? Optional.empty() : SpillwayFields.scanOf(rel.stripped());
      rel = rel == null ? null : rel.stripped();
    }
    return scan;
  }

  /**
   * Whether {@code node} runs on the CPU over the rows a GPU pipeline returned: it is, or sits in the same pipeline
   * above, an aggregation whose pipeline the implementor split ({@link SpillwayAggregate#runsOnCpuOverGpuRows}).
   */
  private static boolean aboveGpuRows(RelNode node) {
    for (RelNode rel = node; ; rel = rel.getInput(0).stripped()) {
      if (rel instanceof SpillwayAggregate aggregate && aggregate.runsOnCpuOverGpuRows()) {
        return true;
      }
      if (rel.getInputs().size() != 1 || rel instanceof Sort) {
        return false;
      }
    }
  }

  /**
   * What a scan's costs rest on  /**
   * What a scan's costs rest on where that is less than a full calibration: {@code uncalibrated} (assumed
   * numbers) or {@code calibrated (quick)}; empty for a full calibration. The profile is the GPU site's, which the
   * costs were predicted from.
   */
  static String profileLabel(SpillwayCostModel.Estimate costing) {
    if (!costing.calibrated()) {
      return "uncalibrated";
    }
    return SpillwayGpuSite.current().map(SpillwayGpuSite::profile).filter(MachineProfile::quick)
        .map(MachineProfiles::calibratedLabel).orElse("");
  }

  private static String cacheLabel(SpillwayBackend backend) {
    return String.format(Locale.ROOT, "%.1f GiB, %s", backend.cacheBytes() / (double) (1L << 30),
        backend.costing().resident() ? "columns fit: resident after the first run" : "too small: streamed every run");
  }

  /** The execution choices of a filter, project or aggregate, whose link bytes are those of its input. */
  static RelWriter describeOperator(RelWriter pw, RelNode node, String cpuVariant, String gpuVariant) {
    if (pw.getDetailLevel() == SqlExplainLevel.DIGEST_ATTRIBUTES) {
      return pw;
    }
    return describe(pw, node, cpuVariant, gpuVariant, inputRows(node), inputFields(node));
  }

  /** Bytes of the given columns over the estimated rows. */
  static long linkBytes(double rows, List<SpillwayField> columns) {
    long width = 0;
    for (SpillwayField c : columns) {
      width += width(c);
    }
    return (long) Math.ceil(rows * width);
  }

  /** Bytes of one value of a column (an estimate for text). */
  static int width(SpillwayField column) {
    return column.isSupported() ? column.type().width() : ExprType.TEXT.width();
  }

  /** Estimated row count of a node's input. */
  static double inputRows(RelNode node) {
    RelMetadataQuery mq = node.getCluster().getMetadataQuery();
    Double rows = mq.getRowCount(node.getInput(0));
    return rows == null ? 0 : rows;
  }

  /** The fields of a Spillway node's input, which its rule has already found to be columnar. */
  static List<SpillwayField> inputFields(RelNode node) {
    return SpillwayFields.of(node.getInput(0)).orElseThrow(() -> new IllegalStateException(
        node.getRelTypeName() + " sits on an input that is not a Spillway chain: " + node.getInput(0)));
  }
}
