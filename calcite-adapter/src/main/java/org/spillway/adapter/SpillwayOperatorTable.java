package org.spillway.adapter;

import org.spillway.gpu.plan.OperatorReport;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The reports of a query's runtime nodes as the lines of a text table (EXPLAIN ANALYZE): per node its label,
 * device, rows out, wall time, the cost model's predicted time, the gigabytes it streamed over the link to the GPU
 * and their rate; "-" where there is no value (no prediction, nothing over the link).
 */
final class SpillwayOperatorTable {
  private static final String[] HEADER = {"operator", "device", "rows", "time ms", "predicted ms", "link GB", "GB/s"};

  private SpillwayOperatorTable() {}

  /**
   * A summary line ({@code rows} out in {@code nanos}, the query prepared in {@code prepareNanos}), then the table of
   * {@code reports} in their order.
   */
  static List<String> lines(List<OperatorReport> reports, long rows, long nanos, long prepareNanos) {
    List<String[]> cells = new ArrayList<>();
    cells.add(HEADER);
    for (OperatorReport r : reports) {
      boolean link = r.execution().linkBytes() > 0;
      cells.add(new String[] {r.planned().label(), r.execution().device(), Long.toString(r.rows()),
          number("%.3f", r.millis()), r.planned().predicted() ? number("%.3f", r.planned().predictedMillis()) : "-",
          link ? number("%.6f", r.execution().linkBytes() / 1e9) : "-",
          link ? number("%.2f", r.linkGigabytesPerSecond()) : "-"});
    }
    int[] width = new int[HEADER.length];
    for (String[] row : cells) {
      for (int c = 0; c < width.length; c++) {
        width[c] = Math.max(width[c], row[c].length());
      }
    }
    List<String> lines = new ArrayList<>();
    lines.add(String.format(Locale.ROOT, "EXPLAIN ANALYZE: %d %s in %.3f ms, %d operator %s; prepared in %.3f ms "
        + "(parsed, planned, code generated)", rows, rows == 1 ? "row" : "rows", nanos / 1e6, reports.size(),
        reports.size() == 1 ? "report" : "reports", prepareNanos / 1e6));
    for (String[] row : cells) {
      lines.add(line(row, width, row == HEADER));
    }
    return lines;
  }

  /** Cells separated by {@code |}: text left-aligned, numbers (all but the first two columns) right-aligned. */
  private static String line(String[] row, int[] width, boolean header) {
    StringBuilder sb = new StringBuilder("|");
    for (int c = 0; c < row.length; c++) {
      String pad = " ".repeat(width[c] - row[c].length());
      sb.append(' ').append(c < 2 || header ? row[c] + pad : pad + row[c]).append(" |");
    }
    return sb.toString();
  }

  private static String number(String format, double value) {
    return String.format(Locale.ROOT, format, value);
  }
}
