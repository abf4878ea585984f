package org.spillway.tests.random;

import java.util.List;

/**
 * What the random query generator knows of the TPC-H tables at SF 0.01: the columns it uses with their value
 * ranges (so that literals land inside, at the edges of or outside the data, which makes filters that select
 * nothing), and the foreign keys it joins along (joins off them would multiply rows beyond a quick test).
 */
final class RandomTables {
  /** The kinds of values the generator types its expressions by. */
  enum Kind {
    /**
     * Integers. Spillway declares TPC-H keys INTEGER, DuckDB's loader BIGINT, so arithmetic reads keys through
     * {@code CAST(k AS INTEGER)}: INTEGER in both engines, with the same overflow.
     */
    INT,
    /** DECIMAL(15,2). */
    DECIMAL,
    DATE,
    TEXT
  }

  /** A column: the value range bounds literals (as SQL literals of the column's kind, low to high). */
  record Column(String name, Kind kind, boolean key, List<String> samples) {
    /** How an expression reads the column so that both engines see the same type (see {@link Kind#INT}). */
    String read(String alias) {
      String ref = alias + "." + name;
      return key ? "CAST(" + ref + " AS INTEGER)" : ref;
    }
  }

  record Table(String name, int rows, List<Column> columns) {
    Column column(String column) {
      return columns.stream().filter(c -> c.name().equals(column)).findFirst()
          .orElseThrow(() -> new IllegalArgumentException(name + " has no column " + column));
    }
  }

  /** {@code child.foreignKey} references {@code parent.primaryKey}. */
  record ForeignKey(String child, String foreignKey, String parent, String primaryKey) {
  }

  private static Column key(String name, int max) {
    return new Column(name, Kind.INT, true, List.of("-1", "0", "1", String.valueOf(max / 2), String.valueOf(max),
        String.valueOf(max + 1)));
  }

  private static Column integer(String name, int... samples) {
    return new Column(name, Kind.INT, false, java.util.Arrays.stream(samples).mapToObj(String::valueOf).toList());
  }

  private static Column decimal(String name, String... samples) {
    return new Column(name, Kind.DECIMAL, false, List.of(samples));
  }

  private static Column date(String name, String... samples) {
    return new Column(name, Kind.DATE, false, java.util.Arrays.stream(samples).map(d -> "DATE '" + d + "'").toList());
  }

  private static Column text(String name, String... samples) {
    return new Column(name, Kind.TEXT, false, java.util.Arrays.stream(samples).map(s -> "'" + s + "'").toList());
  }

  static final List<Table> TABLES = List.of(
      new Table("region", 5, List.of(key("r_regionkey", 4),
          text("r_name", "AFRICA", "ASIA", "EUROPE", "MIDDLE EAST", "ZZZ"))),
      new Table("nation", 25, List.of(key("n_nationkey", 24), key("n_regionkey", 4),
          text("n_name", "ALGERIA", "CHINA", "GERMANY", "JAPAN", "UNITED STATES", "A", "Z"))),
      new Table("supplier", 100, List.of(key("s_suppkey", 100), key("s_nationkey", 24),
          decimal("s_acctbal", "-999.99", "0.00", "1000.50", "4500.00", "9999.99", "10000.00"),
          text("s_name", "Supplier#000000001", "Supplier#000000050", "Supplier#000000100"))),
      new Table("customer", 1500, List.of(key("c_custkey", 1500), key("c_nationkey", 24),
          decimal("c_acctbal", "-999.99", "-500.00", "0.00", "2500.00", "7500.00", "9999.99"),
          text("c_mktsegment", "AUTOMOBILE", "BUILDING", "FURNITURE", "HOUSEHOLD", "MACHINERY", "B"))),
      new Table("part", 2000, List.of(key("p_partkey", 2000), integer("p_size", 0, 1, 10, 25, 49, 50, 51),
          decimal("p_retailprice", "900.00", "901.00", "1200.00", "1500.50", "2098.99", "2100.00"),
          text("p_brand", "Brand#11", "Brand#23", "Brand#34", "Brand#55"),
          text("p_container", "JUMBO BOX", "LG CASE", "MED BAG", "SM PKG", "WRAP JAR"))),
      new Table("partsupp", 8000, List.of(key("ps_partkey", 2000), key("ps_suppkey", 100),
          integer("ps_availqty", 0, 1, 100, 5000, 9999, 10000),
          decimal("ps_supplycost", "1.00", "10.50", "500.00", "999.00", "1000.00"))),
      new Table("orders", 15000, List.of(key("o_orderkey", 60000), key("o_custkey", 1500),
          text("o_orderstatus", "F", "O", "P", "X"),
          decimal("o_totalprice", "800.00", "1000.00", "50000.00", "150000.00", "400000.00", "600000.00"),
          date("o_orderdate", "1991-12-31", "1992-01-01", "1994-06-30", "1996-01-01", "1998-08-02", "1998-12-31"),
          text("o_orderpriority", "1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW"),
          integer("o_shippriority", -1, 0, 1))),
      new Table("lineitem", 60175, List.of(key("l_orderkey", 60000), key("l_partkey", 2000), key("l_suppkey", 100),
          integer("l_linenumber", 0, 1, 3, 7, 8),
          decimal("l_quantity", "0.00", "1.00", "10.00", "25.00", "49.00", "50.00"),
          decimal("l_extendedprice", "900.00", "5000.00", "30000.00", "90000.00", "105000.00"),
          decimal("l_discount", "0.00", "0.03", "0.05", "0.10", "0.11"),
          text("l_returnflag", "A", "N", "R"), text("l_shipmode", "AIR", "MAIL", "RAIL", "SHIP", "TRUCK"),
          date("l_shipdate", "1992-01-01", "1993-07-01", "1995-06-17", "1998-12-01", "1999-01-01"))));

  static final List<ForeignKey> FOREIGN_KEYS = List.of(
      new ForeignKey("nation", "n_regionkey", "region", "r_regionkey"),
      new ForeignKey("supplier", "s_nationkey", "nation", "n_nationkey"),
      new ForeignKey("customer", "c_nationkey", "nation", "n_nationkey"),
      new ForeignKey("orders", "o_custkey", "customer", "c_custkey"),
      new ForeignKey("lineitem", "l_orderkey", "orders", "o_orderkey"),
      new ForeignKey("lineitem", "l_partkey", "part", "p_partkey"),
      new ForeignKey("lineitem", "l_suppkey", "supplier", "s_suppkey"),
      new ForeignKey("partsupp", "ps_partkey", "part", "p_partkey"),
      new ForeignKey("partsupp", "ps_suppkey", "supplier", "s_suppkey"));

  private RandomTables() {
  }

  static Table table(String name) {
    return TABLES.stream().filter(t -> t.name().equals(name)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no table " + name));
  }
}
