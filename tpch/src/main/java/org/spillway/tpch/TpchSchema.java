package org.spillway.tpch;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.spillway.storage.ColumnDef;
import org.spillway.storage.ColumnType;
import org.spillway.storage.TableSchema;

/**
 * The eight TPC-H table schemas (spec 2.18, clause 1.4), all columns NOT NULL. Money and quantities are
 * DECIMAL(15,2), keys INTEGER (order keys BIGINT above SF 300, where they pass 2^31), one-letter flags
 * CHAR(1). The spec's other fixed-length text columns (CHAR(10), CHAR(25), ...) are VARCHAR of the same
 * length: stored values are never blank-padded, so comparisons with literals need no CHAR padding rules.
 */
public final class TpchSchema {
  /** Largest scale factor whose order keys (up to 6,000,000 x SF) fit INTEGER, with margin. */
  public static final double MAX_SCALE_FACTOR_FOR_INTEGER_ORDER_KEYS = 300;

  public static final List<String> TABLE_NAMES =
      List.of("lineitem", "orders", "partsupp", "part", "customer", "supplier", "nation", "region");

  private TpchSchema() {
  }

  /** The 8 table schemas by lower-case table name, largest table first. */
  public static Map<String, TableSchema> tables(double scaleFactor) {
    String orderKey = scaleFactor > MAX_SCALE_FACTOR_FOR_INTEGER_ORDER_KEYS ? "BIGINT" : "INTEGER";
    Map<String, TableSchema> tables = new LinkedHashMap<>();
    tables.put("lineitem", schema(
        "l_orderkey", orderKey, "l_partkey", "INTEGER", "l_suppkey", "INTEGER", "l_linenumber", "INTEGER",
        "l_quantity", "DECIMAL(15,2)", "l_extendedprice", "DECIMAL(15,2)", "l_discount", "DECIMAL(15,2)",
        "l_tax", "DECIMAL(15,2)", "l_returnflag", "CHAR(1)", "l_linestatus", "CHAR(1)", "l_shipdate", "DATE",
        "l_commitdate", "DATE", "l_receiptdate", "DATE", "l_shipinstruct", "VARCHAR(25)",
        "l_shipmode", "VARCHAR(10)", "l_comment", "VARCHAR(44)"));
    tables.put("orders", schema(
        "o_orderkey", orderKey, "o_custkey", "INTEGER", "o_orderstatus", "CHAR(1)", "o_totalprice", "DECIMAL(15,2)",
        "o_orderdate", "DATE", "o_orderpriority", "VARCHAR(15)", "o_clerk", "VARCHAR(15)",
        "o_shippriority", "INTEGER", "o_comment", "VARCHAR(79)"));
    tables.put("partsupp", schema(
        "ps_partkey", "INTEGER", "ps_suppkey", "INTEGER", "ps_availqty", "INTEGER", "ps_supplycost", "DECIMAL(15,2)",
        "ps_comment", "VARCHAR(199)"));
    tables.put("part", schema(
        "p_partkey", "INTEGER", "p_name", "VARCHAR(55)", "p_mfgr", "VARCHAR(25)", "p_brand", "VARCHAR(10)",
        "p_type", "VARCHAR(25)", "p_size", "INTEGER", "p_container", "VARCHAR(10)", "p_retailprice", "DECIMAL(15,2)",
        "p_comment", "VARCHAR(23)"));
    tables.put("customer", schema(
        "c_custkey", "INTEGER", "c_name", "VARCHAR(25)", "c_address", "VARCHAR(40)", "c_nationkey", "INTEGER",
        "c_phone", "VARCHAR(15)", "c_acctbal", "DECIMAL(15,2)", "c_mktsegment", "VARCHAR(10)",
        "c_comment", "VARCHAR(117)"));
    tables.put("supplier", schema(
        "s_suppkey", "INTEGER", "s_name", "VARCHAR(25)", "s_address", "VARCHAR(40)", "s_nationkey", "INTEGER",
        "s_phone", "VARCHAR(15)", "s_acctbal", "DECIMAL(15,2)", "s_comment", "VARCHAR(101)"));
    tables.put("nation", schema(
        "n_nationkey", "INTEGER", "n_name", "VARCHAR(25)", "n_regionkey", "INTEGER", "n_comment", "VARCHAR(152)"));
    tables.put("region", schema(
        "r_regionkey", "INTEGER", "r_name", "VARCHAR(25)", "r_comment", "VARCHAR(152)"));
    return tables;
  }

  /** Columns given as alternating name and SQL type, all NOT NULL. */
  private static TableSchema schema(String... namesAndTypes) {
    ColumnDef[] columns = new ColumnDef[namesAndTypes.length / 2];
    for (int i = 0; i < columns.length; i++) {
      columns[i] = new ColumnDef(namesAndTypes[2 * i], ColumnType.parse(namesAndTypes[2 * i + 1]).notNull());
    }
    return TableSchema.of(columns);
  }
}
