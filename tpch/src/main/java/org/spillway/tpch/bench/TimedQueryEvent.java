package org.spillway.tpch.bench;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;

/**
 * A JFR event spanning one run of a query under one configuration of {@link TpchQueryTimer}: a recording's samples
 * then attribute to the query and configuration that ran while they were taken (recorded only where a flight
 * recording runs).
 */
@Name("spillway.TimedQuery")
@Label("Timed TPC-H query")
@Category("Spillway")
@Description("One run of one query under one configuration")
final class TimedQueryEvent extends Event {
  @Label("Query")
  String query;

  @Label("Configuration")
  String config;

  @Label("Timed")
  @Description("A timed run, not a warm-up")
  boolean timed;
}
