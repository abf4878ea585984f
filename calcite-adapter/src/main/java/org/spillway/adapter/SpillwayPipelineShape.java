package org.spillway.adapter;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.metadata.RelColumnOrigin;
import org.apache.calcite.rel.metadata.RelMetadataQuery;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.util.ImmutableBitSet;
import org.spillway.gpu.vector.ExprType;

/**
 * Derives the cost model's view of a Spillway pipeline from its nodes: the scanned rows and column widths,
 * and for each scanned column the selectivity of the filter conjuncts evaluated before it is first needed
 * (conjuncts in the order of the condition, which is the order the kernels evaluate them in). Columns first
 * needed by a projection or the aggregation are needed after every filter.
 */
final class SpillwayPipelineShape {
  private SpillwayPipelineShape() {}

  /** The shape of the pipeline from {@code scan} up to {@code top} (the converter's input). */
  static SpillwayCostModel.Shape of(RelNode top, SpillwayTableScan scan) {
    List<RelNode> chain = chain(top, scan);
    List<SpillwayField> scanned = SpillwayFields.ofScan(scan.spillwayTable(), scan.fields());
    int columns = scanned.size();
    double[] before = new double[columns];
    Arrays.fill(before, Double.NaN);
    // Per output field of the current node: the scan columns it is computed from, and the one it is, if plain.
    List<ImmutableBitSet> sources = new ArrayList<>();
    int[] plain = new int[columns];
    for (int p = 0; p < columns; p++) {
      sources.add(ImmutableBitSet.of(p));
      plain[p] = p;
    }
    double selectivity = 1;
    boolean aggregates = false;
    for (RelNode node : chain) {
      if (node instanceof Filter filter) {
        for (RexNode conjunct : RelOptUtil.conjunctions(filter.getCondition())) {
          for (int p : columnsOf(conjunct, sources)) {
            if (Double.isNaN(before[p])) {
              before[p] = selectivity;
            }
          }
          selectivity *= SpillwaySelectivity.of(conjunct, filter, plain, scan);
        }
      } else if (node instanceof Project project) {
        List<ImmutableBitSet> next = new ArrayList<>();
        int[] nextPlain = new int[project.getProjects().size()];
        for (int i = 0; i < nextPlain.length; i++) {
          RexNode e = project.getProjects().get(i);
          next.add(columnsOf(e, sources));
          nextPlain[i] = e instanceof RexInputRef ref ? plain[ref.getIndex()] : -1;
        }
        sources = next;
        plain = nextPlain;
      } else if (node instanceof Aggregate) {
        aggregates = true;
        break;  // stages after the aggregation run over its small result, not over the scan
      }
    }
    List<SpillwayCostModel.Column> out = new ArrayList<>();
    for (int p = 0; p < columns; p++) {
      out.add(column(scan, p, scanned.get(p), Double.isNaN(before[p]) ? selectivity : before[p]));
    }
    return new SpillwayCostModel.Shape(scan.spillwayTable().stored().rowCount(), out, selectivity,
        aggregates ? 0 : returnedRowBytes(top));
  }

  /**
   * The cost model's view of scanned column {@code p}: plain text (which only a GPU pipeline's LIKE reads, in place)
   * at the bytes its statistics suggest ({@link SpillwayTextWidths}), other columns at their type's width.
   */
  private static SpillwayCostModel.Column column(SpillwayTableScan scan, int p, SpillwayField field,
      double selectivityBefore) {
    if (field.isSupported() && field.type().kind() == ExprType.Kind.TEXT) {
      return new SpillwayCostModel.Column(SpillwayTextWidths.of(scan.spillwayTable().stored(), scan.fields()[p]),
          selectivityBefore, true);
    }
    return new SpillwayCostModel.Column(SpillwayExplain.width(field), selectivityBefore);
  }

  /**
   * The shape of a pipeline from {@code scan} through join probes up to {@code top}: the scan's columns and the
   * filters below the lowest join (what the scan streams), the output of {@code top} as what comes back when the
   * pipeline does not aggregate ({@code aggregates}). A column that no probe reads is first needed after the probes,
   * so a branching kernel loads its lines only where some row found its partners: its selectivity before use is the
   * filters' times the share of rows the probes keep.
   */
  static SpillwayCostModel.Shape ofProbing(RelNode top, SpillwayTableScan scan, boolean aggregates) {
    List<RelNode> path = new ArrayList<>();
    if (!pathTo(top.stripped(), scan, path)) {
      throw new IllegalStateException("scan " + scan + " is not under " + top);
    }
    int lowestJoin = -1;
    int highestJoin = -1;
    for (int i = 0; i < path.size(); i++) {
      if (path.get(i).getInputs().size() > 1) {
        lowestJoin = i;
        highestJoin = highestJoin < 0 ? i : highestJoin;
      }
    }
    RelNode below = path.get(lowestJoin + 1);
    SpillwayCostModel.Shape base = of(below, scan);
    RelMetadataQuery mq = top.getCluster().getMetadataQuery();
    double selected = Math.max(1, base.rows() * base.selectivity());
    Double probed = highestJoin < 0 ? null : mq.getRowCount(path.get(highestJoin));
    double kept = probed == null ? 1 : Math.min(1, probed / selected);
    List<SpillwayCostModel.Column> columns = afterProbes(base, probeKeyColumns(path, scan, mq), kept);
    if (aggregates) {
      return new SpillwayCostModel.Shape(base.rows(), columns, base.selectivity());
    }
    Double out = mq.getRowCount(top);
    return new SpillwayCostModel.Shape(base.rows(), columns, base.selectivity(), returnedRowBytes(top),
        out == null ? 1 : out / selected);
  }

  /**
   * The base shape's columns, those that neither a filter below the probes nor a probe reads ({@code keys}; null:
   * unknown, every column) fetched at {@code kept} times their selectivity.
   */
  private static List<SpillwayCostModel.Column> afterProbes(SpillwayCostModel.Shape base, ImmutableBitSet keys,
      double kept) {
    List<SpillwayCostModel.Column> columns = new ArrayList<>(base.columns());
    if (keys == null || kept >= 1) {
      return columns;
    }
    for (int p = 0; p < columns.size(); p++) {
      SpillwayCostModel.Column c = columns.get(p);
      if (!keys.get(p) && c.selectivityBefore() >= base.selectivity()) {
        columns.set(p, new SpillwayCostModel.Column(c.width(), c.selectivityBefore() * kept, c.inPlace()));
      }
    }
    return columns;
  }

  /**
   * The scanned columns (positions in the scan's fields) that the joins on {@code path} read on its probe side, in
   * their conditions: traced to the scan by column origins; null when one cannot be traced.
   */
  private static ImmutableBitSet probeKeyColumns(List<RelNode> path, SpillwayTableScan scan, RelMetadataQuery mq) {
    ImmutableBitSet.Builder keys = ImmutableBitSet.builder();
    List<String> table = scan.getTable().getQualifiedName();
    for (int i = 0; i + 1 < path.size(); i++) {
      if (!(path.get(i) instanceof Join join)) {
        continue;
      }
      RelNode probe = path.get(i + 1);
      boolean left = join.getLeft().stripped() == probe;
      int offset = left ? 0 : join.getLeft().getRowType().getFieldCount();
      int width = probe.getRowType().getFieldCount();
      for (int field : RelOptUtil.InputFinder.bits(join.getCondition())) {
        if (field < offset || field >= offset + width) {
          continue;
        }
        Set<RelColumnOrigin> origins = mq.getColumnOrigins(probe, field - offset);
        if (origins == null || origins.isEmpty()) {
          return null;
        }
        for (RelColumnOrigin origin : origins) {
          int p = indexOf(scan.fields(), origin.getOriginColumnOrdinal());
          if (!origin.getOriginTable().getQualifiedName().equals(table) || p < 0) {
            return null;
          }
          keys.set(p);
        }
      }
    }
    return keys.build();
  }

  private static int indexOf(int[] values, int value) {
    for (int i = 0; i < values.length; i++) {
      if (values[i] == value) {
        return i;
      }
    }
    return -1;
  }

  /** Fills {@code path} with the nodes from {@code node} down to {@code scan} (top first); false if not below. */
  private static boolean pathTo(RelNode node, SpillwayTableScan scan, List<RelNode> path) {
    path.add(node);
    if (node == scan) {
      return true;
    }
    for (RelNode input : node.getInputs()) {
      if (pathTo(input.stripped(), scan, path)) {
        return true;
      }
    }
    path.remove(path.size() - 1);
    return false;
  }

  /** Bytes per output row of a pipeline without an aggregation: the values it returns to the host. */
  private static int returnedRowBytes(RelNode top) {
    int bytes = 0;
    for (SpillwayField field : SpillwayFields.of(top).orElse(List.of())) {
      bytes += SpillwayExplain.width(field);
    }
    return bytes;
  }

  /** The nodes from just above the scan up to {@code top}, bottom first. */
  private static List<RelNode> chain(RelNode top, SpillwayTableScan scan) {
    List<RelNode> chain = new ArrayList<>();
    RelNode node = top.stripped();
    while (node != scan && node.getInputs().size() == 1) {
      chain.add(node);
      node = node.getInput(0).stripped();
    }
    Collections.reverse(chain);
    return chain;
  }

  /** The scan columns an expression over the current node's fields reads. */
  private static ImmutableBitSet columnsOf(RexNode e, List<ImmutableBitSet> sources) {
    ImmutableBitSet.Builder columns = ImmutableBitSet.builder();
    for (int field : RelOptUtil.InputFinder.bits(e)) {
      columns.addAll(sources.get(field));
    }
    return columns.build();
  }
}
