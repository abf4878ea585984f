package org.spillway.adapter;

import org.apache.calcite.schema.Table;
import org.apache.calcite.schema.impl.AbstractSchema;
import org.spillway.storage.Catalog;

import java.util.LinkedHashMap;
import java.util.Map;

/** Schema exposing every table of a Spillway catalog. */
public final class SpillwaySchema extends AbstractSchema {
  private final Catalog catalog;
  private final SpillwayDevice device;
  private final SpillwayJoinAlgorithm joinAlgorithm;
  private final SpillwayDeviceUsage deviceUsage = new SpillwayDeviceUsage();
  private Map<String, Table> tables;

  public SpillwaySchema(Catalog catalog) {
    this(catalog, SpillwayDevice.AUTO);
  }

  /** A schema whose operators run on the given device (AUTO: the planner chooses). */
  public SpillwaySchema(Catalog catalog, SpillwayDevice device) {
    this(catalog, device, SpillwayJoinAlgorithm.AUTO);
  }

  /** A schema whose operators run on the given device and whose equi-joins use the given algorithm. */
  public SpillwaySchema(Catalog catalog, SpillwayDevice device, SpillwayJoinAlgorithm joinAlgorithm) {
    this.catalog = catalog;
    this.device = device;
    this.joinAlgorithm = joinAlgorithm;
  }

  /** The catalog behind this schema. */
  public Catalog catalog() {
    return catalog;
  }

  @Override protected synchronized Map<String, Table> getTableMap() {
    if (tables == null) {
      Map<String, Table> map = new LinkedHashMap<>();
      for (String name : catalog.tableNames()) {
        map.put(name, new SpillwayTable(catalog, name, device, joinAlgorithm, deviceUsage));
      }
      tables = map;
    }
    return tables;
  }

  /** Where this connection's pipelines ran. */
  public SpillwayDeviceUsage deviceUsage() {
    return deviceUsage;
  }

  @Override public boolean isMutable() {
    return false;
  }
}
