package org.spillway.tpch.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Every measurement of a run, saved so that another run can join them to its report: each engine's copy of the
 * data then lives in a device call of its own (at SF 100, RAM, time and the size of what travels allow no more).
 * Tab-separated lines: a header with the scale factor and the link bound's bandwidth, then per measurement an
 * M line (configuration, traced times, error), a P line (its plan), an S line (seconds) and R lines (rows).
 */
final class ResultsFile {
  private static final String NULL = "\\N";
  private static final String HEADER = "# TpchBenchmark results";

  /** What a file holds: the measurements and the link bound bandwidth of the run that wrote it (null if none). */
  record Contents(List<Measurement> measurements, PinnedBandwidth link) {}

  private ResultsFile() {}

  static void write(Path file, double sf, PinnedBandwidth link, List<Measurement> measurements) throws IOException {
    List<String> lines = new ArrayList<>();
    lines.add(join(HEADER, "sf", String.valueOf(sf), "link", link == null ? NULL : String.valueOf(link.gbPerSecond()),
        link == null ? NULL : link.source()));
    for (Measurement m : measurements) {
      Config c = m.config();
      lines.add(join("M", String.valueOf(m.query()), c.engine(), c.transfer(), c.variant(), String.valueOf(c.cached()),
          num(m.pipelineSeconds()), num(m.movedGb()), num(m.streamSeconds()), text(m.fallback()), text(m.error())));
      ExplainedPlan p = m.plan();
      if (p != null) {
        lines.add(join("P", p.device(), p.transfer(), p.filterVariant(), String.valueOf(p.planBytes()),
            num(p.predictedGpuMillis()), num(p.predictedCpuMillis()), text(p.cpuBecause()), String.valueOf(p.shared())));
      }
      lines.add("S\t" + join(Arrays.stream(m.seconds()).mapToObj(ResultsFile::num).toArray(String[]::new)));
      if (m.rows() != null) {
        for (List<String> row : m.rows().rows()) {
          lines.add("R\t" + join(row.stream().map(ResultsFile::text).toArray(String[]::new)));
        }
      }
    }
    Files.write(file, lines, StandardCharsets.UTF_8);
  }

  /** The measurements in {@code file}, which must be of scale factor {@code sf}. */
  static Contents read(Path file, double sf) throws IOException {
    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    String[] h = lines.isEmpty() ? new String[0] : cells(lines.get(0));
    if (h.length != 6 || !h[0].equals(HEADER) || Double.parseDouble(h[2]) != sf) {
      throw new IOException(file + " is not a TpchBenchmark result file of SF " + sf);
    }
    PinnedBandwidth link = h[4].equals(NULL) ? null : new PinnedBandwidth(Double.parseDouble(h[4]), h[5]);
    List<Measurement> out = new ArrayList<>();
    for (int i = 1; i < lines.size(); ) {
      String[] m = cells(lines.get(i++));
      ExplainedPlan plan = null;
      if (lines.get(i).startsWith("P\t")) {
        String[] p = cells(lines.get(i++));
        // files written before the shared flag have no ninth cell
        plan = new ExplainedPlan(p[1], p[2], p[3], Long.parseLong(p[4]), dbl(p[5]), dbl(p[6]), nul(p[7]),
            p.length > 8 && Boolean.parseBoolean(p[8]));
      }
      // A failed configuration has no timed runs: its line of seconds is empty.
      double[] seconds = Arrays.stream(cells(lines.get(i++))).skip(1).filter(c -> !c.isEmpty())
          .mapToDouble(ResultsFile::dbl).toArray();
      List<List<String>> rows = new ArrayList<>();
      while (i < lines.size() && lines.get(i).startsWith("R\t")) {
        rows.add(Arrays.stream(cells(lines.get(i++))).skip(1).map(ResultsFile::nul).toList());
      }
      Config config = new Config(m[2], m[3], m[4], Boolean.parseBoolean(m[5]));
      out.add(new Measurement(config, Integer.parseInt(m[1]), seconds, dbl(m[6]), dbl(m[7]), dbl(m[8]), nul(m[9]),
          plan, nul(m[10]) == null ? new ResultRows(rows) : null, nul(m[10])));
    }
    return new Contents(out, link);
  }

  private static String join(String... cells) {
    return String.join("\t", cells);
  }

  private static String[] cells(String line) {
    return line.split("\t", -1);
  }

  private static String num(double v) {
    return Double.isNaN(v) ? NULL : String.format(Locale.ROOT, "%.9g", v);
  }

  private static double dbl(String s) {
    return s.equals(NULL) ? Double.NaN : Double.parseDouble(s);
  }

  private static String text(String s) {
    return s == null ? NULL : s.replace('\t', ' ').replace('\n', ' ');
  }

  private static String nul(String s) {
    return s.equals(NULL) ? null : s;
  }
}
