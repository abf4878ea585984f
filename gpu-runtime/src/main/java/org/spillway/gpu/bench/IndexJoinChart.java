package org.spillway.gpu.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Draws the index join benchmark's CSV ({@link IndexJoinBenchmark}), one chart per sweep it holds, as the paper's
 * figures plot them: probe keys per second (M keys/s) of every join over the selectivity (Fig. 9's shape), the size
 * of R (Fig. 5; a chart per selectivity where the sweep held it fixed) or the window (Fig. 7), on a logarithmic x
 * axis. Runs where the CSV was copied to, since the GPU machine's JRE has no fonts: {@code IndexJoinChart
 * index-join.csv OUT_DIR} writes {@code index-join-SWEEP.png} (a sweep such as "size 1.0%" as size-1.0pct).
 */
public final class IndexJoinChart {
  /** The x column and its label of each sweep. */
  private static final Map<String, String> AXES = Map.of("selectivity", "selectivity %", "size", "R GiB",
      "window", "window MiB");

  private IndexJoinChart() {}

  /** Writes a chart per sweep of {@code report} into {@code dir}; returns the files written. */
  static List<Path> draw(BenchReport report, Path dir) throws IOException {
    List<Path> written = new ArrayList<>();
    for (String sweep : IndexJoinBenchmark.sweeps(report)) {
      BenchReport points = new BenchReport(report.title() + ": " + sweep, report.columns());
      for (int row = 0; row < report.rowCount(); row++) {
        int at = row;
        if (report.cell(at, "sweep").equals(sweep)) {
          points.row(report.columns().stream().map(column -> report.cell(at, column)).toArray());
        }
      }
      if (points.rowCount() == 0) {
        continue;
      }
      Path png = dir.resolve("index-join-" + sweep.replace(" ", "-").replace("%", "pct") + ".png");
      String x = sweep.startsWith("size") ? AXES.get("size") : AXES.get(sweep);
      BenchLineChart.write(points, png, "line", x, "M keys/s", true, x + " (log)");
      written.add(png);
    }
    return written;
  }

  public static void main(String[] args) throws IOException {
    if (args.length != 2) {
      System.err.println("usage: IndexJoinChart index-join.csv OUT_DIR");
      System.exit(2);
    }
    for (Path png : draw(BenchReport.readCsv("Windowed index join against hash joins", Path.of(args[0])),
        Path.of(args[1]))) {
      System.out.println("wrote " + png);
    }
  }
}
