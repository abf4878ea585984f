package org.spillway.tpch.bench;

/** TPC-H Q1 and Q6 on Spillway's GPU and CPU backends and on DuckDB (being written). */
public final class TpchBenchmark {
  /** The lineitem columns Q1 and Q6 read, as a {@link org.spillway.tpch.TpchGenerator#parseSelection} text. */
  public static final String LINEITEM_Q1_Q6 =
      "lineitem:l_quantity,l_extendedprice,l_discount,l_tax,l_returnflag,l_linestatus,l_shipdate";

  private TpchBenchmark() {}
}
