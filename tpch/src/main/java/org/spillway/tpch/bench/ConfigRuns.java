package org.spillway.tpch.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * One configuration of {@link TpchQueryTimer} over one query: its open connection, the times of its runs so far and
 * the rows of its last one. The timer runs the configurations of a query in turns (one run each, the order rotated
 * every round) so that none is always first after another's run: which configuration ran before changes the next
 * one's time (caches, the JIT, the GC, the GPU's clocks), and a fixed order would charge that to the plans.
 */
final class ConfigRuns implements AutoCloseable {
  final String name;
  private final String query;
  private final String properties;
  private final Connection connection;
  private final List<Double> millis = new ArrayList<>();
  private final List<Double> cpuMillis = new ArrayList<>();
  private final List<Double> prepareMillis = new ArrayList<>();
  private ResultRows rows;
  private boolean done;
  private String failure;

  ConfigRuns(String query, String name, String properties, Connection connection) {
    this.query = query;
    this.name = name;
    this.properties = properties;
    this.connection = connection;
  }

  /** A configuration whose connection did not open: it takes no runs and reports {@code cause}. */
  static ConfigRuns failed(String query, String name, Exception cause) {
    ConfigRuns runs = new ConfigRuns(query, name, "", null);
    runs.failure = firstLine(cause);
    runs.done = true;
    return runs;
  }

  String properties() {
    return properties;
  }

  Connection connection() {
    return connection;
  }

  /** Whether this configuration takes no more runs: a run failed, or one took longer than the slow limit. */
  boolean done() {
    return done;
  }

  /** The first failure's message, or null. */
  String failure() {
    return failure;
  }

  /**
   * Runs {@code sql} once with this configuration's system properties set; a timed run ({@code timed}) records its
   * wall and process CPU time and the part of the wall time that preparing the statement took (parsing, planning,
   * code generation), and one over {@code slowMillis} ends this configuration's runs (slow queries would otherwise
   * take most of a benchmark's time). A failure ends them too, and is kept.
   */
  void run(String sql, boolean timed, double slowMillis) {
    Map<String, String> before = TpchQueryTimer.setSystemProperties(properties);
    TimedQueryEvent event = new TimedQueryEvent();
    event.query = query;
    event.config = name;
    try {
      event.begin();
      long cpuStart = processCpuNanos();
      long start = System.nanoTime();
      long prepared;
      try (PreparedStatement s = connection.prepareStatement(sql)) {
        prepared = System.nanoTime();
        rows = ResultRows.read(s.executeQuery());
      }
      double ms = (System.nanoTime() - start) / 1e6;
      double cpuMs = (processCpuNanos() - cpuStart) / 1e6;
      if (timed) {
        event.timed = true;
        millis.add(ms);
        cpuMillis.add(cpuMs);
        prepareMillis.add((prepared - start) / 1e6);
        done = ms > slowMillis;
      }
    } catch (SQLException | RuntimeException e) {
      failure = firstLine(e);
      done = true;
    } finally {
      event.commit();
      TpchQueryTimer.restoreSystemProperties(before);
    }
  }

  ResultRows rows() {
    return rows;
  }

  int runs() {
    return millis.size();
  }

  double median() {
    return sorted(millis)[millis.size() / 2];
  }

  double min() {
    return sorted(millis)[0];
  }

  double max() {
    return sorted(millis)[millis.size() - 1];
  }

  /** The median of the process's CPU time per timed run (all threads, JIT and GC included). */
  double cpuMedian() {
    return sorted(cpuMillis)[cpuMillis.size() / 2];
  }

  /** The median of the time preparing the statement took per timed run (part of the run's wall time). */
  double prepareMedian() {
    return sorted(prepareMillis)[prepareMillis.size() / 2];
  }

  private static double[] sorted(List<Double> values) {
    double[] out = values.stream().mapToDouble(Double::doubleValue).toArray();
    Arrays.sort(out);
    return out;
  }

  private static String firstLine(Exception e) {
    return String.valueOf(e.getMessage()).lines().findFirst().orElse("");
  }

  /** The CPU time of all of this process's threads so far. */
  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
        .getOperatingSystemMXBean()).getProcessCpuTime();
  }

  @Override public void close() throws SQLException {
    if (connection != null) {
      connection.close();
    }
  }
}
