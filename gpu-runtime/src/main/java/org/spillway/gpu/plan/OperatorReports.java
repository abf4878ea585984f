package org.spillway.gpu.plan;

import java.util.ArrayList;
import java.util.List;

/**
 * The reports of the runtime nodes of one query, in the order the nodes finished. Nodes finish on several threads
 * (build sides run beside their probe sides), so adding is thread-safe; a query whose plan has several Spillway
 * subtrees shares one collector among them.
 */
public final class OperatorReports {
  private final List<OperatorReport> reports = new ArrayList<>();

  /** Adds the report of a node that finished. */
  public void add(OperatorReport report) {
    if (report == null) {
      throw new IllegalArgumentException("no report");
    }
    synchronized (reports) {
      reports.add(report);
    }
  }

  /** The reports so far, in the order they were added. */
  public List<OperatorReport> list() {
    synchronized (reports) {
      return List.copyOf(reports);
    }
  }
}
