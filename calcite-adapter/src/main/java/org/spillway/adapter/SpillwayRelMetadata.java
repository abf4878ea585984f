package org.spillway.adapter;

import org.apache.calcite.plan.hep.HepRelVertex;
import org.apache.calcite.plan.volcano.RelSubset;
import org.apache.calcite.plan.volcano.VolcanoPlanner;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.TableScan;
import org.apache.calcite.rel.core.JoinInfo;
import org.apache.calcite.rel.metadata.BuiltInMetadata;
import org.apache.calcite.rel.metadata.ChainedRelMetadataProvider;
import org.apache.calcite.rel.metadata.DefaultRelMetadataProvider;
import org.apache.calcite.rel.metadata.MetadataDef;
import org.apache.calcite.rel.metadata.MetadataHandler;
import org.apache.calcite.rel.metadata.ReflectiveRelMetadataProvider;
import org.apache.calcite.rel.metadata.RelColumnOrigin;
import org.apache.calcite.rel.metadata.RelMdUtil;
import org.apache.calcite.rel.metadata.RelMetadataProvider;
import org.apache.calcite.rel.metadata.RelMetadataQuery;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexUtil;
import org.checkerframework.checker.nullness.qual.Nullable;

import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;

/**
 * Metadata that Calcite cannot derive for Spillway on its own: the table column behind each field of a
 * (narrowed) Spillway scan, join row counts from the catalog's distinct-value statistics instead of
 * Calcite's fixed 15% selectivity of an equality (which estimated a billion rows for TPC-H Q3 at SF 0.01 and
 * so misled both the join order and the join cost model), and the selectivity of filters on a table's columns
 * from its statistics ({@link SpillwaySelectivity}) instead of Calcite's fixed guesses, which the join order reads
 * through the filtered inputs' row counts.
 */
public final class SpillwayRelMetadata {
  /** Spillway's handlers in front of Calcite's defaults; what {@link SpillwayPrograms} plans with. */
  public static final RelMetadataProvider PROVIDER = ChainedRelMetadataProvider.of(List.of(
      ReflectiveRelMetadataProvider.reflectiveSource(new ColumnOriginHandler(),
          BuiltInMetadata.ColumnOrigin.Handler.class),
      ReflectiveRelMetadataProvider.reflectiveSource(new RowCountHandler(), BuiltInMetadata.RowCount.Handler.class),
      ReflectiveRelMetadataProvider.reflectiveSource(new SelectivityHandler(),
          BuiltInMetadata.Selectivity.Handler.class),
      SpillwayColumnUniqueness.SOURCE,
      DefaultRelMetadataProvider.INSTANCE));

  private SpillwayRelMetadata() {}

  /** Column origins of Spillway scans (Calcite's generic rule takes the output position for the table column). */
  public static final class ColumnOriginHandler implements MetadataHandler<BuiltInMetadata.ColumnOrigin> {
    @Override public MetadataDef<BuiltInMetadata.ColumnOrigin> getDef() {
      return BuiltInMetadata.ColumnOrigin.DEF;
    }

    /** A scan's field {@code i} comes unchanged from table column {@code fields[i]}. */
    public Set<RelColumnOrigin> getColumnOrigins(SpillwayTableScan scan, RelMetadataQuery mq, int column) {
      return Set.of(new RelColumnOrigin(scan.getTable(), scan.fields()[column], false));
    }

    /** The converter hands its input's rows on unchanged. */
    public @Nullable Set<RelColumnOrigin> getColumnOrigins(SpillwayToEnumerableConverter converter,
        RelMetadataQuery mq, int column) {
      return mq.getColumnOrigins(converter.getInput(), column);
    }

    /** Inside the Volcano planner every input is a subset: follow its best (or original) member. */
    public @Nullable Set<RelColumnOrigin> getColumnOrigins(RelSubset subset, RelMetadataQuery mq, int column) {
      return mq.getColumnOrigins(subset.getBestOrOriginal(), column);
    }

    /** Inside a Hep program every input is a vertex: follow its current node. */
    public @Nullable Set<RelColumnOrigin> getColumnOrigins(HepRelVertex vertex, RelMetadataQuery mq, int column) {
      return mq.getColumnOrigins(vertex.getCurrentRel(), column);
    }
  }

  /** Filter selectivities over Spillway tables from their column statistics and samples. */
  public static final class SelectivityHandler implements MetadataHandler<BuiltInMetadata.Selectivity> {
    @Override public MetadataDef<BuiltInMetadata.Selectivity> getDef() {
      return BuiltInMetadata.Selectivity.DEF;
    }

    /**
     * The product over the predicate's conjuncts of each one's selectivity (Calcite's guess for a conjunct the
     * statistics say nothing about, as Calcite's own handler answers for a scan).
     */
    public @Nullable Double getSelectivity(TableScan scan, RelMetadataQuery mq, @Nullable RexNode predicate) {
      SpillwayTable table = scan.getTable().unwrap(SpillwayTable.class);
      if (table == null || predicate == null) {
        return RelMdUtil.guessSelectivity(predicate);
      }
      int[] columns = scan instanceof SpillwayTableScan spillway ? spillway.fields()
          : IntStream.range(0, scan.getRowType().getFieldCount()).toArray();
      double selectivity = 1;
      for (RexNode conjunct : RelOptUtil.conjunctions(predicate)) {
        Double known = SpillwaySelectivity.ofColumns(conjunct, table.stored(), columns);
        selectivity *= known != null ? known : RelMdUtil.guessSelectivity(conjunct);
      }
      return selectivity;
    }

    /** Inside the Volcano planner a filter's input is a subset: ask its best (or original) member. */
    public @Nullable Double getSelectivity(RelSubset subset, RelMetadataQuery mq, @Nullable RexNode predicate) {
      return mq.getSelectivity(subset.getBestOrOriginal(), predicate);
    }

    /** Inside a Hep program a filter's input is a vertex: ask its current node. */
    public @Nullable Double getSelectivity(HepRelVertex vertex, RelMetadataQuery mq, @Nullable RexNode predicate) {
      return mq.getSelectivity(vertex.getCurrentRel(), predicate);
    }
  }

  /** Join row counts from distinct values: |L| x |R| / max(ndv(left key), ndv(right key)) per key. */
  public static final class RowCountHandler implements MetadataHandler<BuiltInMetadata.RowCount> {
    @Override public MetadataDef<BuiltInMetadata.RowCount> getDef() {
      return BuiltInMetadata.RowCount.DEF;
    }

    /** The estimate from statistics where every key has them, else Calcite's own. */
    public @Nullable Double getRowCount(Join join, RelMetadataQuery mq) {
      Double estimate = estimate(join, mq);
      return estimate != null ? estimate : RelMdUtil.getJoinRowCount(mq, join, join.getCondition());
    }

    /**
     * A Spillway aggregate's rows: Calcite's estimate from its input's distinct values, but at most that of the logical
     * aggregate it was converted from (the original of its Volcano set). Over a Spillway input Calcite takes a computed
     * column's distinct values (Q13's count per customer) for its input's rows, where over the logical input it
     * divides them by ten; over the logical input it lacks the statistics of others (Q4's order priorities). The two
     * conventions must not cost one result differently, or Calcite's row-at-a-time aggregate wins where it should not.
     */
    public @Nullable Double getRowCount(SpillwayAggregate aggregate, RelMetadataQuery mq) {
      if (aggregate.getGroupSet().isEmpty()) {
        return 1.0;
      }
      Double distinct = mq.getDistinctRowCount(aggregate.getInput(), aggregate.getGroupSet(), null);
      Double input = mq.getRowCount(aggregate.getInput());
      Double rows = distinct != null ? distinct * aggregate.getGroupSets().size()
          : input == null ? null : input / 10 * aggregate.getGroupSets().size();
      if (aggregate.getCluster().getPlanner() instanceof VolcanoPlanner volcano) {
        RelSubset subset = volcano.getSubset(aggregate);
        RelNode original = subset == null ? null : subset.getOriginal();
        Double logical = original instanceof Aggregate a && !(a instanceof SpillwayAggregate) ? mq.getRowCount(a)
            : null;
        rows = rows == null ? logical : logical == null ? rows : Math.min(rows, logical);
      }
      return rows;
    }

    private static @Nullable Double estimate(Join join, RelMetadataQuery mq) {
      JoinInfo info = join.analyzeCondition();
      Double left = mq.getRowCount(join.getLeft());
      Double right = mq.getRowCount(join.getRight());
      if (info.leftKeys.isEmpty() || left == null || right == null) {
        return null;
      }
      Double leftDistinct = SpillwayStatistics.distinctValues(mq, join.getLeft(), info.leftKeys, left);
      Double rightDistinct = SpillwayStatistics.distinctValues(mq, join.getRight(), info.rightKeys, right);
      if (leftDistinct == null || rightDistinct == null) {
        return null;
      }
      double residual = residualSelectivity(join, info);
      // Containment: every key of the side with fewer distinct keys finds its partners on the other side.
      double inner = left * right / Math.max(1, Math.max(leftDistinct, rightDistinct)) * residual;
      double matchedLeft = Math.min(1, rightDistinct / Math.max(1, leftDistinct)) * residual;
      double rows = switch (join.getJoinType()) {
        case INNER -> inner;
        case LEFT -> Math.max(inner, left);
        case RIGHT -> Math.max(inner, right);
        case FULL -> Math.max(inner, left) + right * (1 - Math.min(1, leftDistinct / Math.max(1, rightDistinct)));
        case SEMI -> left * matchedLeft;
        case ANTI -> left * (1 - matchedLeft);
        default -> Double.NaN;
      };
      return Double.isNaN(rows) ? null : Math.max(1, rows);
    }

    /** Calcite's guess for the conditions that are not key equalities (1 when there are none). */
    private static double residualSelectivity(Join join, JoinInfo info) {
      if (info.nonEquiConditions.isEmpty()) {
        return 1;
      }
      RexNode remaining = RexUtil.composeConjunction(join.getCluster().getRexBuilder(), info.nonEquiConditions);
      return RelMdUtil.guessSelectivity(remaining);
    }
  }
}
