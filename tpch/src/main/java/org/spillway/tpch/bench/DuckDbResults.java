package org.spillway.tpch.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * DuckDB's measurements saved by a DuckDB-only run and read by a Spillway run on another machine session, so that
 * each engine's copy of the data lives in a call of its own (RAM, time and pack size allow no more at SF 100).
 * Tab-separated lines: a header naming the scale factor, then per query its seconds and its result rows.
 */
final class DuckDbResults {
  private static final String NULL = "\\N";

  private DuckDbResults() {}

  /** The file name for a scale factor. */
  static String fileName(String sf) {
    return "duckdb-sf" + sf + ".tsv";
  }

  static void write(Path file, double sf, List<Measurement> measurements) throws IOException {
    List<String> lines = new ArrayList<>();
    lines.add("# TpchBenchmark DuckDB results\tsf\t" + sf);
    for (Measurement m : measurements) {
      if (!m.config().equals(Config.DUCKDB) || m.error() != null) {
        continue;
      }
      StringBuilder seconds = new StringBuilder("Q" + m.query() + "\tseconds");
      for (double s : m.seconds()) {
        seconds.append('\t').append(String.format(Locale.ROOT, "%.9f", s));
      }
      lines.add(seconds.toString());
      for (List<String> row : m.rows().rows()) {
        lines.add("Q" + m.query() + "\trow\t" + String.join("\t", row.stream().map(v -> v == null ? NULL : v).toList()));
      }
    }
    Files.write(file, lines, StandardCharsets.UTF_8);
  }

  /** DuckDB's measurements from {@code file}, which must be of scale factor {@code sf}. */
  static List<Measurement> read(Path file, double sf) throws IOException {
    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    String[] header = lines.isEmpty() ? new String[0] : lines.get(0).split("\t");
    if (header.length != 3 || !header[0].startsWith("# TpchBenchmark DuckDB") || Double.parseDouble(header[2]) != sf) {
      throw new IOException(file + " is not a TpchBenchmark DuckDB result file of SF " + sf + ": " + lines.get(0));
    }
    Map<Integer, double[]> seconds = new LinkedHashMap<>();
    Map<Integer, List<List<String>>> rows = new LinkedHashMap<>();
    for (String line : lines.subList(1, lines.size())) {
      String[] cells = line.split("\t", -1);
      int query = Integer.parseInt(cells[0].substring(1));
      List<String> values = Arrays.stream(cells).skip(2).map(v -> v.equals(NULL) ? null : v).toList();
      if (cells[1].equals("seconds")) {
        seconds.put(query, values.stream().mapToDouble(Double::parseDouble).toArray());
      } else {
        rows.computeIfAbsent(query, q -> new ArrayList<>()).add(values);
      }
    }
    List<Measurement> out = new ArrayList<>();
    seconds.forEach((query, s) -> out.add(Measurement.of(Config.DUCKDB, query, s, List.of(), null,
        new ResultRows(rows.getOrDefault(query, List.of())))));
    return out;
  }
}
