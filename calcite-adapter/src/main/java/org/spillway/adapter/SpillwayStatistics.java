package org.spillway.adapter;

import org.apache.calcite.avatica.util.TimeUnitRange;
import org.apache.calcite.plan.volcano.RelSubset;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.metadata.RelColumnOrigin;
import org.apache.calcite.rel.metadata.RelMetadataQuery;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.util.ImmutableBitSet;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.spillway.storage.ColumnStatistics;
import org.spillway.storage.StorageException;
import org.spillway.storage.StoredTable;
import org.spillway.gpu.vector.ExprType;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The catalog's column statistics (min, max, distinct values, NULLs) of the table column behind a field of
 * any relational expression, found through Calcite's column-origin metadata; what the join row estimates and
 * the join cost model read.
 */
final class SpillwayStatistics {
  /**
   * A column whose distinct values are at least this share of its rows is taken as unique (a key). The
   * catalog counts distinct values with HyperLogLog (about 1% error), so an exact test cannot work.
   */
  static final double UNIQUE_SHARE = 0.95;

  private SpillwayStatistics() {}

  /**
   * What the cost model knows of one join key: its range (if integral), distinct values and uniqueness: {@code unique}
   * in the stored table, or {@code derivedUnique} by what the plan makes of it (an aggregation's group keys). A GPU
   * probe takes derived keys where {@link #pairsOnce} says; the CPU's choice of a perfect-hash table keeps to stored
   * keys (it was not measured over derived ones).
   */
  record KeyStatistics(@Nullable Long min, @Nullable Long max, double distinct, boolean unique, boolean derivedUnique) {
    KeyStatistics(@Nullable Long min, @Nullable Long max, double distinct, boolean unique) {
      this(min, max, distinct, unique, false);
    }

    /**
     * Whether a probe row of a join of {@code type} meets at most one build row, as a GPU probe needs: keys unique in
     * their table, or an INNER join's derived unique keys. A LEFT join's derived keys are an aggregation's output
     * (Q13's orders per customer), whose NULL-extended values the pipeline above groups by: the GPU cannot pack those
     * keys' NULL flags, and that pipeline would fall back to the CPU after its build side ran.
     */
    boolean pairsOnce(JoinRelType type) {
      return unique || derivedUnique && type == JoinRelType.INNER;
    }

    /** Values in [min, max], or +infinity without a range. */
    double range() {
      return min == null || max == null ? Double.POSITIVE_INFINITY : (double) max - min + 1;
    }
  }

  /** Statistics of the stored table column that field {@code field} of {@code rel} passes on unchanged. */
  static Optional<ColumnStatistics> column(RelMetadataQuery mq, RelNode rel, int field) {
    return origin(mq, rel, field).map(o -> o.table().statistics().column(o.column()));
  }

  /** The stored table and column a field comes from unchanged. */
  private record Origin(StoredTable table, int column) {}

  private static Optional<Origin> origin(RelMetadataQuery mq, RelNode rel, int field) {
    RelColumnOrigin origin = mq.getColumnOrigin(rel, field);
    if (origin == null || origin.isDerived()) {
      return Optional.empty();
    }
    SpillwayTable table = origin.getOriginTable().unwrap(SpillwayTable.class);
    return table == null ? Optional.empty() : Optional.of(new Origin(table.stored(), origin.getOriginColumnOrdinal()));
  }

  /**
   * Distinct combinations of the key fields among {@code rows} rows of {@code rel}: the product of the
   * columns' distinct counts, each and all capped at the rows; null when a key has no statistics.
   */
  static @Nullable Double distinctValues(RelMetadataQuery mq, RelNode rel, List<Integer> keys, double rows) {
    double product = 1;
    for (int key : keys) {
      Optional<ColumnStatistics> stats = column(mq, rel, key);
      if (stats.isEmpty()) {
        return null;
      }
      product *= Math.min(rows, Math.max(1, stats.get().distinctCount()));
    }
    return Math.min(rows, product);
  }

  /**
   * The share of {@code probe}'s rows whose keys some row of {@code build} has: the build keys' distinct values over
   * the probe keys' (at most 1; 1 where either has no statistics).
   */
  static double matchedShare(RelMetadataQuery mq, RelNode build, int[] buildKeys, RelNode probe, int[] probeKeys) {
    Double buildRows = mq.getRowCount(build);
    Double probeRows = mq.getRowCount(probe);
    Double buildDistinct = buildRows == null ? null
        : distinctValues(mq, build, Arrays.stream(buildKeys).boxed().toList(), buildRows);
    Double probeDistinct = probeRows == null ? null
        : distinctValues(mq, probe, Arrays.stream(probeKeys).boxed().toList(), probeRows);
    return buildDistinct == null || probeDistinct == null || probeDistinct <= 0 ? 1
        : Math.min(1, buildDistinct / probeDistinct);
  }

  /**
   * Statistics of a join key of {@code rel} ({@code rows} estimated rows): the column's range and uniqueness
   * when the key is one column, distinct values (capped at the rows) in any case; empty without statistics.
   */
  static Optional<KeyStatistics> key(RelMetadataQuery mq, RelNode rel, List<Integer> keys, double rows) {
    Double distinct = distinctValues(mq, rel, keys, rows);
    if (distinct == null) {
      return Optional.empty();
    }
    if (keys.size() != 1) {  // several keys are unique together where one of them is unique alone
      boolean unique = keys.stream().anyMatch(key -> origin(mq, rel, key).map(SpillwayStatistics::unique).orElse(false))
          || keyPair(mq, rel, keys);
      return Optional.of(new KeyStatistics(null, null, distinct, unique, !unique && derivedUnique(mq, rel, keys)));
    }
    Origin origin = origin(mq, rel, keys.get(0)).orElseThrow();
    ColumnStatistics stats = origin.table().statistics().column(origin.column());
    boolean unique = unique(origin);
    return Optional.of(new KeyStatistics(asLong(stats.min()), asLong(stats.max()), distinct, unique,
        !unique && derivedUnique(mq, rel, keys)));
  }

  /**
   * Whether the keys are unique in {@code rel} by what its nodes make of their inputs, where the column they come
   * from is not: an aggregation's group keys (Q18's orders that {@code group by l_orderkey} kept, Q20's
   * {@code (l_partkey, l_suppkey)} sums), through the filters and projections above it. NULL keys are left out: they
   * match no row of an equi-join.
   */
  private static boolean derivedUnique(RelMetadataQuery mq, RelNode rel, List<Integer> keys) {
    return Boolean.TRUE.equals(mq.areColumnsUnique(rel, ImmutableBitSet.of(keys), true));
  }

  /**
   * Whether two keys are columns of one stored table that hold no pair of values twice (a composite primary key,
   * partsupp's (partkey, suppkey)), checked exactly by the table once. The rows of {@code rel} are some of that
   * table's only where no join multiplies them, so the key must pass every row through unchanged: Calcite's column
   * origins follow filters and projections, and a join on a unique key of the other side keeps this side's rows
   * distinct, which the origins cannot tell; only a chain of single-input nodes over a scan is trusted here.
   */
  private static boolean keyPair(RelMetadataQuery mq, RelNode rel, List<Integer> keys) {
    if (keys.size() != 2 || SpillwayFields.scanOf(rel).isEmpty()) {
      return false;
    }
    Optional<Origin> first = origin(mq, rel, keys.get(0));
    Optional<Origin> second = origin(mq, rel, keys.get(1));
    if (first.isEmpty() || second.isEmpty() || first.get().table() != second.get().table()) {
      return false;
    }
    try {
      return first.get().table().isKey(first.get().column(), second.get().column());
    } catch (StorageException e) {
      return false;
    }
  }

  /** Whether the stored column holds (nearly) no value twice among its non-NULL values. */
  private static boolean unique(Origin origin) {
    ColumnStatistics stats = origin.table().statistics().column(origin.column());
    return stats.distinctCount() >= UNIQUE_SHARE * (origin.table().rowCount() - stats.nullCount());
  }

  /**
   * The lowest and highest value field {@code field} of {@code rel} can hold, as the engine holds it: a column's
   * minimum and maximum where it comes unchanged from an integer or date column, the codes of the sorted dictionary
   * for dictionary-encoded text; null where unknown.
   */
  static long @Nullable [] valueRange(RelMetadataQuery mq, RelNode rel, int field, SpillwayField spillwayField) {
    if (spillwayField.type().kind() == ExprType.Kind.STRING && spillwayField.dictionary() != null) {
      int codes = spillwayField.dictionary().get().size();
      return codes == 0 ? null : new long[] {0, codes - 1};
    }
    Optional<ColumnStatistics> stats = column(mq, rel, field);
    if (stats.isEmpty()) {
      return yearRange(mq, rel, field);
    }
    return range(stats.get());
  }

  private static long @Nullable [] range(ColumnStatistics stats) {
    if (!(stats.min() instanceof Integer || stats.min() instanceof Long)) {
      return null;
    }
    Long min = asLong(stats.min());
    Long max = asLong(stats.max());
    return min == null || max == null || min > max ? null : new long[] {min, max};
  }

  /**
   * The years {@code EXTRACT(YEAR FROM d)} can give where field {@code field} of {@code rel} is that projection of a
   * date column whose range the statistics know (Q7's, Q8's and Q9's order and ship years), else null.
   */
  private static long @Nullable [] yearRange(RelMetadataQuery mq, RelNode rel, int field) {
    RelNode node = rel instanceof RelSubset subset ? subset.getBestOrOriginal() : rel;
    if (!(node instanceof Project project)
        || !(project.getProjects().get(field) instanceof RexCall call) || call.getKind() != SqlKind.EXTRACT
        || !(call.getOperands().get(0) instanceof RexLiteral unit) || unit.getValue() != TimeUnitRange.YEAR
        || !(call.getOperands().get(1) instanceof RexInputRef date)
        || date.getType().getSqlTypeName() != SqlTypeName.DATE) {
      return null;
    }
    long[] days = column(mq, project.getInput(), date.getIndex()).map(SpillwayStatistics::range).orElse(null);
    return days == null ? null : new long[] {LocalDate.ofEpochDay(days[0]).getYear(),
        LocalDate.ofEpochDay(days[1]).getYear()};
  }

  /** An integral statistic as a long (decimals unscaled), or null. */
  private static @Nullable Long asLong(@Nullable Object value) {
    if (value instanceof Integer || value instanceof Long) {
      return ((Number) value).longValue();
    }
    if (value instanceof BigDecimal decimal) {
      try {
        return decimal.unscaledValue().longValueExact();
      } catch (ArithmeticException e) {
        return null;
      }
    }
    return null;
  }
}
