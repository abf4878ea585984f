package org.spillway.tpch;

import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A terminal progress bar over several tables: rows done / total per table and overall, rate and ETA.
 * On a TTY it redraws one line in place with '\r' (at most 10 times a second); otherwise it prints a
 * line per finished table and per 10% of overall progress, so logs stay short.
 */
public final class ConsoleProgressBar implements ProgressListener {
  private static final long REDRAW_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
  private static final int BAR_WIDTH = 20;

  private final PrintStream out;
  private final boolean interactive;
  private final int terminalWidth = terminalWidth();
  private final Map<String, long[]> tables = new LinkedHashMap<>();
  private long startNanos = -1;
  private long lastDrawNanos;
  private int lastWidth;
  private int printedTenths;

  /** A bar that redraws in place when the JVM runs on a terminal. */
  public ConsoleProgressBar(PrintStream out) {
    this(out, System.console() != null);
  }

  public ConsoleProgressBar(PrintStream out, boolean interactive) {
    this.out = out;
    this.interactive = interactive;
  }

  @Override
  public synchronized void onProgress(String table, long rowsDone, long rowsTotal) {
    long now = System.nanoTime();
    if (startNanos < 0) {
      startNanos = now;
    }
    long[] counts = tables.computeIfAbsent(table, t -> new long[2]);
    boolean wasDone = counts[1] > 0 && counts[0] >= counts[1];
    counts[0] = rowsDone;
    counts[1] = rowsTotal;
    boolean finished = !wasDone && rowsTotal > 0 && rowsDone >= rowsTotal;
    if (interactive) {
      if (finished || now - lastDrawNanos >= REDRAW_NANOS) {
        redraw(now);
      }
    } else {
      int tenths = (int) (10 * overallFraction());
      if (finished) {
        out.println(String.format(Locale.ROOT, "%s: %s rows done (%s)", table, human(rowsDone), statusLine(now)));
      } else if (tenths > printedTenths) {
        out.println(statusLine(now));
      }
      printedTenths = Math.max(printedTenths, tenths);
    }
  }

  @Override
  public synchronized void onComplete() {
    long now = System.nanoTime();
    if (interactive) {
      redraw(now);
      out.println();
    }
    long rows = tables.values().stream().mapToLong(c -> c[0]).sum();
    double seconds = startNanos < 0 ? 0 : (now - startNanos) / 1e9;
    out.println(String.format(Locale.ROOT, "done: %s rows in %d tables in %.1f s", human(rows), tables.size(), seconds));
    out.flush();
  }

  private void redraw(long now) {
    StringBuilder line = new StringBuilder(statusLine(now));
    int done = 0;
    for (Map.Entry<String, long[]> table : tables.entrySet()) {
      long[] c = table.getValue();
      if (c[0] >= c[1]) {
        done++;
      } else if (c[0] > 0) {
        line.append(" | ").append(table.getKey()).append(' ').append(human(c[0])).append('/').append(human(c[1]));
      }
    }
    line.append(" | ").append(done).append('/').append(tables.size()).append(" tables done");
    // a line wider than the terminal wraps, and '\r' would then redraw only its last row
    if (line.length() >= terminalWidth) {
      line.setLength(terminalWidth - 1);
    }
    int width = line.length();
    // pad with blanks so a shorter line fully covers the previous one
    while (line.length() < lastWidth) {
      line.append(' ');
    }
    lastWidth = width;
    out.print('\r');
    out.print(line);
    out.flush();
    lastDrawNanos = now;
  }

  /** "[#####---------------]  25%  1.50M/6.00M rows  1.20M rows/s  ETA 4s" */
  private String statusLine(long now) {
    long[] totals = totals();
    long done = totals[0];
    long total = totals[1];
    double fraction = overallFraction();
    int filled = (int) Math.round(fraction * BAR_WIDTH);
    double seconds = Math.max(1e-3, (now - startNanos) / 1e9);
    double rate = done / seconds;
    String eta = rate > 0 && total > done ? formatSeconds((total - done) / rate) : "-";
    return String.format(Locale.ROOT, "[%s%s] %3d%%  %s/%s rows  %s rows/s  ETA %s", "#".repeat(filled),
        "-".repeat(BAR_WIDTH - filled), Math.round(fraction * 100), human(done), human(total), human((long) rate), eta);
  }

  private double overallFraction() {
    long[] totals = totals();
    return totals[1] == 0 ? 0 : (double) totals[0] / totals[1];
  }

  /** Rows done and total over all tables; a total estimate that fell short counts as done rows. */
  private long[] totals() {
    long done = 0;
    long total = 0;
    for (long[] c : tables.values()) {
      done += c[0];
      total += Math.max(c[0], c[1]);
    }
    return new long[] {done, total};
  }

  /** Columns of the terminal as the shell exports them, else 120. */
  private static int terminalWidth() {
    try {
      return Math.max(40, Integer.parseInt(System.getenv().getOrDefault("COLUMNS", "120").trim()));
    } catch (NumberFormatException e) {
      return 120;
    }
  }

  static String formatSeconds(double seconds) {
    long s = Math.round(seconds);
    return s < 60 ? s + "s" : s < 3600 ? (s / 60) + "m" + String.format("%02d", s % 60) + "s"
        : (s / 3600) + "h" + String.format("%02d", s / 60 % 60) + "m";
  }

  /** 950, 12.3K, 6.00M, 1.20G */
  static String human(long n) {
    if (n < 1_000) {
      return Long.toString(n);
    }
    String[] units = {"K", "M", "G", "T"};
    double v = n;
    int unit = -1;
    while (v >= 1_000 && unit < units.length - 1) {
      v /= 1_000;
      unit++;
    }
    return String.format(Locale.ROOT, v < 10 ? "%.2f%s" : v < 100 ? "%.1f%s" : "%.0f%s", v, units[unit]);
  }
}
