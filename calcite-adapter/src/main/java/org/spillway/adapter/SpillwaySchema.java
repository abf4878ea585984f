package org.spillway.adapter;

import com.google.common.collect.ImmutableMultimap;
import com.google.common.collect.Multimap;
import org.apache.calcite.schema.Function;
import org.apache.calcite.schema.Table;
import org.apache.calcite.schema.impl.AbstractSchema;
import org.spillway.storage.Catalog;
import org.spillway.storage.imports.ImportFormat;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/** Schema exposing every table of a Spillway catalog. */
public final class SpillwaySchema extends AbstractSchema {
  private final Catalog catalog;
  private final SpillwayOptions options;
  private final SpillwayDeviceUsage deviceUsage = new SpillwayDeviceUsage();
  private Map<String, Table> tables;
  /** The catalog's version {@link #tables} lists. */
  private long tablesVersion = -1;

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

  /** The catalog's tables, listed again when a table was created or dropped (here or in another process). */
  @Override protected synchronized Map<String, Table> getTableMap() {
    long version = catalog.version();
    if (tables == null || version != tablesVersion) {
      Map<String, Table> map = new LinkedHashMap<>();
      for (String name : catalog.tableNames()) {
        Table known = tables == null ? null : tables.get(name);
        map.put(name, known != null ? known : new SpillwayTable(catalog, name, options, deviceUsage));
      }
      tables = map;
      tablesVersion = version;
    }
    return tables;
  }

  /** The table functions that read files: read_parquet, read_arrow and read_csv ({@link SpillwayFileFunction}). */
  @Override protected Multimap<String, Function> getFunctionMultimap() {
    ImmutableMultimap.Builder<String, Function> functions = ImmutableMultimap.builder();
    for (ImportFormat format : ImportFormat.values()) {
      functions.put(fileFunctionName(format), new SpillwayFileFunction(format, this));
    }
    return functions.build();
  }

  /** The name of the table function that reads files of a format, e.g. read_parquet. */
  public static String fileFunctionName(ImportFormat format) {
    return "read_" + format.name().toLowerCase(Locale.ROOT);
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
