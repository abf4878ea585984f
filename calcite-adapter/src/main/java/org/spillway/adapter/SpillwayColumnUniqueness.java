package org.spillway.adapter;

import org.apache.calcite.plan.volcano.RelSubset;
import org.apache.calcite.rel.metadata.BuiltInMetadata;
import org.apache.calcite.rel.metadata.MetadataDef;
import org.apache.calcite.rel.metadata.MetadataHandler;
import org.apache.calcite.rel.metadata.ReflectiveRelMetadataProvider;
import org.apache.calcite.rel.metadata.RelMetadataProvider;
import org.apache.calcite.rel.metadata.RelMetadataQuery;
import org.apache.calcite.util.ImmutableBitSet;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.spillway.storage.StorageException;
import org.spillway.storage.StoredTable;

/**
 * Column uniqueness of Spillway scans from the catalog: a set of fields is unique when one of them is a key
 * of the stored table ({@link StoredTable#isKey}: no NULL, no value twice, checked exactly). Calcite derives
 * the rest (through filters, projections, joins on a unique key, aggregates), which is how a rule asks "is
 * this join key unique on this side" ({@link SpillwayEagerAggregationRule}).
 */
public final class SpillwayColumnUniqueness implements MetadataHandler<BuiltInMetadata.ColumnUniqueness> {
  /** The handler as a provider, for {@link SpillwayRelMetadata#PROVIDER}. */
  static final RelMetadataProvider SOURCE = ReflectiveRelMetadataProvider.reflectiveSource(
      new SpillwayColumnUniqueness(), BuiltInMetadata.ColumnUniqueness.Handler.class);

  @Override public MetadataDef<BuiltInMetadata.ColumnUniqueness> getDef() {
    return BuiltInMetadata.ColumnUniqueness.DEF;
  }

  /**
   * Whether the scan's {@code columns} are unique: true when one of them is a key of the table. A table
   * that cannot be loaded answers false here; the query reports why when it reads the table.
   */
  public Boolean areColumnsUnique(SpillwayTableScan scan, RelMetadataQuery mq, ImmutableBitSet columns,
      boolean ignoreNulls) {
    int[] fields = scan.fields();
    StoredTable table = scan.getTable().unwrapOrThrow(SpillwayTable.class).stored();
    try {
      for (int column : columns) {
        if (table.isKey(fields[column])) {
          return true;
        }
      }
    } catch (StorageException e) {
      return false;
    }
    return false;
  }

  /**
   * Inside the Volcano planner every input is a subset; Calcite's own handler asks only some kinds of its
   * members (scans, filters, aggregates, not joins), so a key of customer is not a key of customer joined
   * with nation there. Ask the subset's best (or original) member, as the planner's other metadata does.
   */
  public @Nullable Boolean areColumnsUnique(RelSubset subset, RelMetadataQuery mq, ImmutableBitSet columns,
      boolean ignoreNulls) {
    return mq.areColumnsUnique(subset.getBestOrOriginal(), columns, ignoreNulls);
  }
}
