package org.spillway.adapter.jdbc;

import org.apache.calcite.avatica.DriverVersion;
import org.apache.calcite.jdbc.CalciteConnection;
import org.apache.calcite.jdbc.Driver;
import org.apache.calcite.schema.SchemaPlus;
import org.spillway.adapter.CatalogRegistry;
import org.spillway.adapter.SpillwayOptions;
import org.spillway.adapter.SpillwayPrepare;
import org.spillway.adapter.SpillwayPrograms;
import org.spillway.adapter.SpillwaySchema;
import org.spillway.adapter.SpillwayTypeSystem;
import org.spillway.storage.Catalog;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.EnumMap;
import java.util.Map;
import java.util.Properties;

/**
 * JDBC driver for {@code jdbc:spillway:dataDir=/path[;key=value...]}: a Calcite connection whose default
 * schema holds the tables of a Spillway catalog. Unknown properties are errors, not silently ignored.
 */
public class SpillwayDriver extends Driver {
  public static final String CONNECT_STRING_PREFIX = "jdbc:spillway:";

  static {
    SpillwayPrograms.install();
    new SpillwayDriver().register();
  }

  @Override protected String getConnectStringPrefix() {
    return CONNECT_STRING_PREFIX;
  }

  /** A driver whose statements are prepared with a plan cache per connection (repeated SQL skips planning). */
  public SpillwayDriver() {
    super(SpillwayPrepare::new);
  }

  @Override protected DriverVersion createDriverVersion() {
    return new DriverVersion("Spillway JDBC Driver", "0.1.0", "Spillway", "0.1.0", true, 0, 1, 0, 1);
  }

  @Override public Connection connect(String url, Properties info) throws SQLException {
    if (!acceptsURL(url)) {
      return null;
    }
    Map<SpillwayProperty, String> props = parse(url, info);
    SpillwayOptions options;
    try {
      options = SpillwayOptions.parse(props.get(SpillwayProperty.DEVICE), props.get(SpillwayProperty.TRANSFER),
          props.get(SpillwayProperty.FILTER_VARIANT), props.get(SpillwayProperty.GPU_CACHE),
          props.get(SpillwayProperty.JOIN_ALGORITHM), props.get(SpillwayProperty.INDEX_JOIN_WINDOW));
    } catch (IllegalArgumentException e) {
      throw new SQLException(e.getMessage(), "08001", e);
    }
    Catalog catalog = openCatalog(props.get(SpillwayProperty.DATA_DIR));
    Connection connection = super.connect(CONNECT_STRING_PREFIX, calciteProperties());
    CalciteConnection calcite = connection.unwrap(CalciteConnection.class);
    SchemaPlus root = calcite.getRootSchema();
    String schema = props.get(SpillwayProperty.SCHEMA);
    // uncached: Calcite would otherwise keep the first list of tables, and miss those created later
    root.add(schema, new SpillwaySchema(catalog, options)).setCacheEnabled(false);
    calcite.setSchema(schema);
    return SpillwayJdbcProxy.wrap(connection);
  }

  private static Map<SpillwayProperty, String> parse(String url, Properties info) throws SQLException {
    Properties all = org.apache.calcite.avatica.ConnectStringParser.parse(
        url.substring(CONNECT_STRING_PREFIX.length()), info);
    Map<SpillwayProperty, String> props = new EnumMap<>(SpillwayProperty.class);
    for (String key : all.stringPropertyNames()) {
      if (key.equals("user") || key.equals("password")) {
        continue;  // sqlline and BI tools always send these; Spillway has no users of its own
      }
      SpillwayProperty property = SpillwayProperty.of(key).orElseThrow(() -> new SQLException(
          "Unknown connection property '" + key + "'; known properties: "
              + SpillwayProperty.knownKeys(), "08001"));
      props.put(property, all.getProperty(key));
    }
    for (SpillwayProperty p : SpillwayProperty.values()) {
      if (!props.containsKey(p) && p.defaultValue != null) {
        props.put(p, p.defaultValue);
      }
    }
    return props;
  }

  private static Catalog openCatalog(String dataDir) throws SQLException {
    if (dataDir == null || dataDir.isBlank()) {
      throw new SQLException("Connection property 'dataDir' is required, e.g. "
          + CONNECT_STRING_PREFIX + "dataDir=/path/to/data", "08001");
    }
    try {
      return CatalogRegistry.open(Path.of(dataDir));
    } catch (RuntimeException e) {
      throw new SQLException("Cannot open Spillway data directory '" + dataDir + "': "
          + e.getMessage(), "08001", e);
    }
  }

  /** Lexical settings: unquoted names fold to lower case and match case-insensitively, as in PostgreSQL. */
  private static Properties calciteProperties() {
    Properties p = new Properties();
    p.setProperty("caseSensitive", "false");
    p.setProperty("unquotedCasing", "TO_LOWER");
    p.setProperty("quotedCasing", "UNCHANGED");
    p.setProperty("quoting", "DOUBLE_QUOTE");
    p.setProperty("timeZone", "UTC");
    p.setProperty("typeSystem", SpillwayTypeSystem.class.getName() + "#INSTANCE");
    return p;
  }
}
