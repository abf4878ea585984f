package org.spillway.adapter;

import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelWriter;
import org.apache.calcite.rel.metadata.RelMetadataQuery;
import org.apache.calcite.sql.SqlExplainLevel;
import org.spillway.gpu.exec.ExprType;

import java.util.List;

/**
 * The execution choices every Spillway node shows in EXPLAIN: device, algorithm variant, transfer method
 * and the bytes its input columns would move over the host-to-GPU link (rows x column widths). Device and
 * transfer method are those chosen for the pipeline over the node's scan ({@link SpillwayBackend}).
 */
final class SpillwayExplain {
  private SpillwayExplain() {}

  /** Describes {@code node}, whose variant is {@code cpuVariant} on the CPU and {@code gpuVariant} on the GPU. */
  static RelWriter describe(RelWriter pw, RelNode node, String cpuVariant, String gpuVariant, double rows,
      List<SpillwayField> columns) {
    if (pw.getDetailLevel() == SqlExplainLevel.DIGEST_ATTRIBUTES) {
      return pw;  // digests identify nodes while planning; estimates must not change identities (or cost time)
    }
    SpillwayBackend backend = SpillwayFields.scanOf(node).map(SpillwayBackend::of)
        .orElseGet(() -> SpillwayBackend.of(null));
    return pw.item("device", backend.device())
        .item("variant", backend.gpu() ? gpuVariant : cpuVariant)
        .item("transfer", backend.transfer())
        .item("linkBytes", linkBytes(rows, columns));
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
      width += c.isSupported() ? c.type().width() : ExprType.TEXT.width();
    }
    return (long) Math.ceil(rows * width);
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
