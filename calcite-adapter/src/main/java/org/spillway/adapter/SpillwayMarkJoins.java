package org.spillway.adapter;

import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.metadata.RelMetadataQuery;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.tools.Program;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Fuses semi- and anti-joins stacked on one build side into a {@link SpillwayMarkJoin}, after Volcano chose the plan:
 * where each of them builds on its returned (left) side and marks it by streaming its probe side, on the same build
 * keys, and each probe side is a scan of the same table (filtered or not), one pass over that table marks the build
 * rows for all of them. TPC-H Q21's EXISTS and NOT EXISTS over lineitem otherwise stream lineitem twice.
 *
 * <p>Each join keeps the build rows by its own mark (a semi-join the marked ones, an anti-join the others), and
 * whether a build row is marked depends on that row alone, so marking every build row for every join and keeping
 * those all of them keep is what the stacked joins return, in the same order. A probe side's filter becomes part of
 * its join's condition: a probe row the filter drops matches no build row, as a candidate failing the condition.
 */
final class SpillwayMarkJoins {
  private SpillwayMarkJoins() {}

  /**
   * The program step that fuses the stacked mark joins of a physical plan; which joins mark their build side is
   * decided here first, knowing which inputs other joins share ({@link SpillwayJoin#noteSharedInputs}).
   */
  static Program program() {
    return (planner, rel, traits, materializations, lattices) -> {
      SpillwayJoin.noteSharedInputs(rel);
      return fuse(rel);
    };
  }

  /** {@code rel} with every chain of fusable mark joins in it fused, outermost chains first. */
  static RelNode fuse(RelNode rel) {
    RelNode fused = fuseChain(rel);
    List<RelNode> inputs = new ArrayList<>();
    boolean changed = fused != rel;
    for (RelNode input : fused.getInputs()) {
      RelNode next = fuse(input);
      changed |= next != input;
      inputs.add(next);
    }
    return changed ? fused.copy(fused.getTraitSet(), inputs) : rel;
  }

  /** A join's probe side as one table's scan: the scan and the filters over it, or null where it is not one. */
  private record ProbeScan(SpillwayTableScan scan, List<RexNode> filters) {
    static ProbeScan of(RelNode rel) {
      List<RexNode> filters = new ArrayList<>();
      while (rel instanceof SpillwayFilter filter) {
        filters.add(filter.getCondition());
        rel = filter.getInput();
      }
      return rel instanceof SpillwayTableScan scan ? new ProbeScan(scan, filters) : null;
    }

    /** The table columns of the probe keys {@code keys}. */
    int[] tableColumns(int[] keys) {
      int[] fields = scan.fields();
      return Arrays.stream(keys).map(k -> fields[k]).toArray();
    }
  }

  /** One join of a chain: the join, its keys and its probe side. */
  private record Marking(SpillwayJoin join, SpillwayJoinKeys keys, ProbeScan probe) {}

  /** The mark join that stands for the chain of joins from {@code rel} down its left inputs, or {@code rel}. */
  private static RelNode fuseChain(RelNode rel) {
    List<Marking> chain = new ArrayList<>();
    for (RelNode r = rel; ; r = ((SpillwayJoin) r).getLeft()) {
      Marking next = marking(r);
      if (next == null || !chain.isEmpty() && !fusable(chain.get(0), next)) {
        break;
      }
      chain.add(next);
    }
    if (chain.size() < 2) {
      return rel;
    }
    List<Marking> innerFirst = new ArrayList<>(chain);
    java.util.Collections.reverse(innerFirst);
    Map<Integer, Integer> union = new LinkedHashMap<>();
    for (Marking m : innerFirst) {
      for (int field : m.probe().scan().fields()) {
        union.putIfAbsent(field, union.size());
      }
    }
    int[] unionFields = union.keySet().stream().mapToInt(Integer::intValue).toArray();
    SpillwayTableScan first = innerFirst.get(0).probe().scan();
    SpillwayTableScan scan = new SpillwayTableScan(first.getCluster(), first.getTable(), first.spillwayTable(),
        unionFields);
    RelNode build = innerFirst.get(0).join().getLeft();
    int leftCount = build.getRowType().getFieldCount();
    RexBuilder rex = rel.getCluster().getRexBuilder();
    List<RexNode> conditions = new ArrayList<>();
    List<JoinRelType> types = new ArrayList<>();
    for (Marking m : innerFirst) {
      int[] fields = m.probe().scan().fields();
      List<RexNode> parts = new ArrayList<>();
      if (m.keys().residual() != null) {
        parts.add(remap(m.keys().residual(), leftCount, leftCount, fields, union));
      }
      for (RexNode filter : m.probe().filters()) {
        parts.add(remap(filter, 0, leftCount, fields, union));
      }
      conditions.add(parts.isEmpty() ? null : RexUtil.composeConjunction(rex, parts));
      types.add(m.join().getJoinType());
    }
    int[] probeKeys = Arrays.stream(innerFirst.get(0).probe().tableColumns(innerFirst.get(0).keys().rightKeys()))
        .map(union::get).toArray();
    RelMetadataQuery mq = rel.getCluster().getMetadataQuery();
    return new SpillwayMarkJoin(rel.getCluster(), rel.getTraitSet(), build, scan, chain.get(0).keys().leftKeys(),
        probeKeys, conditions, types, mq.getRowCount(rel));
  }

  /** {@code rel} as one join of a chain: a semi- or anti-join that marks its build side, probing a table's scan. */
  private static Marking marking(RelNode rel) {
    if (!(rel instanceof SpillwayJoin join) || join.getJoinType() != JoinRelType.SEMI
        && join.getJoinType() != JoinRelType.ANTI || !join.marksBuildSide()) {
      return null;
    }
    ProbeScan probe = ProbeScan.of(join.getRight());
    return probe == null ? null : new Marking(join, join.keys(), probe);
  }

  /** Whether {@code next}, below {@code top}, marks the same build rows on the same keys in the same table. */
  private static boolean fusable(Marking top, Marking next) {
    return top.probe().scan().spillwayTable() == next.probe().scan().spillwayTable()
        && Arrays.equals(top.keys().leftKeys(), next.keys().leftKeys())
        && Arrays.equals(top.probe().tableColumns(top.keys().rightKeys()),
            next.probe().tableColumns(next.keys().rightKeys()));
  }

  /**
   * {@code e} over a row whose columns from {@code probeFrom} on are the probe scan's {@code fields}, moved onto the
   * build row then the union scan's columns (the columns before {@code probeFrom} are the build row's, kept).
   */
  private static RexNode remap(RexNode e, int probeFrom, int leftCount, int[] fields, Map<Integer, Integer> union) {
    return e.accept(new RexShuttle() {
      @Override public RexNode visitInputRef(RexInputRef ref) {
        int i = ref.getIndex();
        return i < probeFrom ? ref : new RexInputRef(leftCount + union.get(fields[i - probeFrom]), ref.getType());
      }
    });
  }
}
