package org.spillway.adapter;

import org.apache.calcite.schema.Table;
import org.apache.calcite.schema.impl.AbstractSchema;
import org.spillway.storage.Catalog;

import java.util.LinkedHashMap;
import java.util.Map;

/** Schema exposing every table of a Spillway catalog. */
public final class SpillwaySchema extends AbstractSchema {
  private final Catalog catalog;
  private final SpillwayOptions options;
  private final SpillwayDeviceUsage deviceUsage = new SpillwayDeviceUsage();
  private Map<String, Table> tables;

  public SpillwaySchema(Catalog catalog) {
    this(catalog, SpillwayOptions.DEFAULT);
  }

  /** A schema whose operators run on the given device (AUTO: the planner chooses). */
  public SpillwaySchema(Catalog catalog, SpillwayDevice device) {
    this(catalog, SpillwayOptions.of(device));
  }

  /** A schema whose operators run with the given device, transfer, filter variant and cache settings. */
  public SpillwaySchema(Catalog catalog, SpillwayOptions options) {
    this.catalog = catalog;
    this.options = options;
  }

  /** The catalog behind this schema. */
  public Catalog catalog() {
    return catalog;
  }

  @Override protected synchronized Map<String, Table> getTableMap() {
    if (tables == null) {
      Map<String, Table> map = new LinkedHashMap<>();
      for (String name : catalog.tableNames()) {
        map.put(name, new SpillwayTable(catalog, name, options, deviceUsage));
      }
      tables = map;
    }
    return tables;
  }

  /** The execution settings of this schema's connection. */
  public SpillwayOptions options() {
    return options;
  }

  /** Where this connection's pipelines ran. */
  public SpillwayDeviceUsage deviceUsage() {
    return deviceUsage;
  }

  @Override public boolean isMutable() {
    return false;
  }
}
