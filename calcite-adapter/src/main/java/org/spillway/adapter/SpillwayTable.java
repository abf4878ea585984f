package org.spillway.adapter;

import org.apache.arrow.vector.VectorSchemaRoot;
import org.spillway.gpu.plan.DeviceRuns;
import org.spillway.gpu.plan.ScanTable;

import org.apache.calcite.DataContext;
import org.apache.calcite.adapter.java.AbstractQueryableTable;
import org.apache.calcite.linq4j.Enumerable;
import org.apache.calcite.linq4j.QueryProvider;
import org.apache.calcite.linq4j.Queryable;
import org.apache.calcite.plan.RelOptTable;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.schema.SchemaPlus;
import org.apache.calcite.schema.Statistic;
import org.apache.calcite.schema.Statistics;
import org.apache.calcite.schema.TranslatableTable;
import org.spillway.storage.Catalog;
import org.spillway.storage.StoredTable;

import java.util.List;
import java.util.stream.IntStream;

/** Table over a table of a Spillway catalog; the planner sees it as a {@link SpillwayTableScan}. */
public final class SpillwayTable extends AbstractQueryableTable implements TranslatableTable, ScanTable {
  private final Catalog catalog;
  private final String name;
  private final SpillwayOptions options;
  private final SpillwayDeviceUsage deviceUsage;

  SpillwayTable(Catalog catalog, String name, SpillwayOptions options, SpillwayDeviceUsage deviceUsage) {
    super(Object[].class);
    this.catalog = catalog;
    this.name = name;
    this.options = options;
    this.deviceUsage = deviceUsage;
  }

  /** Where the pipelines over this table ran (shared by the tables of one connection). */
  SpillwayDeviceUsage deviceUsage() {
    return deviceUsage;
  }

  /** The device that queries over this table may use (a connection setting). */
  public SpillwayDevice device() {
    return options.device();
  }

  /** The execution settings of the connection this table belongs to. */
  public SpillwayOptions options() {
    return options;
  }

  /** The equi-join algorithm that joins over this table use (a connection setting; AUTO: the cost model's). */
  public SpillwayJoinAlgorithm joinAlgorithm() {
    return options.joinAlgorithm();
  }

  /** Bytes of probe keys per window of the windowed index joins over this table (a connection setting). */
  public long indexJoinWindowBytes() {
    return options.indexJoinWindowBytes();
  }

  /** The catalog the table belongs to (its index definitions, and the indexes built from them). */
  Catalog catalog() {
    return catalog;
  }

  /** The stored table; it is loaded into memory on first use. */
  public StoredTable stored() {
    return catalog.table(name).orElseThrow(() -> new IllegalStateException(
        "table '" + name + "' no longer exists in " + catalog.directory()));
  }

  @Override public List<VectorSchemaRoot> batches() {
    return stored().batches();
  }

  @Override public long rowCount() {
    return stored().rowCount();
  }

  @Override public String name() {
    return stored().name();
  }

  @Override public DeviceRuns deviceRuns() {
    return deviceUsage;
  }

  @Override public RelDataType getRowType(RelDataTypeFactory typeFactory) {
    return SpillwayTypes.rowType(typeFactory, stored().schema());
  }

  @Override public Statistic getStatistic() {
    return Statistics.of(stored().rowCount(), List.of());
  }

  @Override public RelNode toRel(RelOptTable.ToRelContext context, RelOptTable relOptTable) {
    int columns = relOptTable.getRowType().getFieldCount();
    return new SpillwayTableScan(context.getCluster(), relOptTable, this,
        IntStream.range(0, columns).toArray());
  }

  @Override public <T> Queryable<T> asQueryable(QueryProvider queryProvider, SchemaPlus schema,
      String tableName) {
    throw new UnsupportedOperationException("Spillway tables are reached through SpillwayTableScan");
  }

  /**
   * Reads the given columns of every row; called by the code that {@link SpillwayToEnumerableConverter}
   * generates. Rows are {@code Object[]}, or the bare value when {@code scalar} (one column).
   */
  public Enumerable<Object> query(DataContext root, int[] fields, boolean scalar) {
    return new SpillwayTableRows(stored(), fields, scalar, DataContext.Variable.CANCEL_FLAG.get(root));
  }

  @Override public String toString() {
    return "SpillwayTable {" + name + "}";
  }
}
