package org.spillway.gpu.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.imageio.ImageIO;

/**
 * A benchmark result table: printed aligned to stdout, written as CSV, and drawn as a PNG bar chart
 * (plain Java2D, headless). Numeric cells are doubles, printed with two decimals (three significant digits
 * below 0.1).
 */
public final class BenchReport {
  private final String title;
  private final List<String> columns;
  private final List<Object[]> rows = new ArrayList<>();

  public BenchReport(String title, List<String> columns) {
    this.title = title;
    this.columns = List.copyOf(columns);
  }

  public String title() {
    return title;
  }

  public List<String> columns() {
    return columns;
  }

  /** Adds a row; it must have one value per column. */
  public BenchReport row(Object... values) {
    if (values.length != columns.size()) {
      throw new IllegalArgumentException("row has " + values.length + " values, table " + title + " has "
          + columns.size() + " columns " + columns);
    }
    rows.add(values.clone());
    return this;
  }

  public int rowCount() {
    return rows.size();
  }

  /** The cell of {@code row} in {@code column}. */
  public Object cell(int row, String column) {
    return rows.get(row)[indexOf(column)];
  }

  private int indexOf(String column) {
    int i = columns.indexOf(column);
    if (i < 0) {
      throw new IllegalArgumentException("table " + title + " has no column '" + column + "'; it has " + columns);
    }
    return i;
  }

  private static String format(Object v) {
    if (v instanceof Double || v instanceof Float) {
      double d = ((Number) v).doubleValue();
      if (Double.isNaN(d)) {
        return "";
      }
      // two decimals, but three significant digits below 0.1 (slow joins, skewed cases) so that no rate reads 0
      return String.format(Locale.ROOT, d != 0 && Math.abs(d) < 0.1 ? "%.3g" : "%.2f", d);
    }
    return v == null ? "" : v.toString();
  }

  /** The table as aligned text, title first. */
  public String toTable() {
    int[] width = new int[columns.size()];
    for (int c = 0; c < width.length; c++) {
      width[c] = columns.get(c).length();
      for (Object[] r : rows) {
        width[c] = Math.max(width[c], format(r[c]).length());
      }
    }
    StringBuilder sb = new StringBuilder(title).append('\n');
    appendLine(sb, columns.toArray(), width);
    for (int c = 0; c < width.length; c++) {
      sb.append(c == 0 ? "" : "  ").append("-".repeat(width[c]));
    }
    sb.append('\n');
    for (Object[] r : rows) {
      appendLine(sb, r, width);
    }
    return sb.toString();
  }

  private static void appendLine(StringBuilder sb, Object[] values, int[] width) {
    for (int c = 0; c < width.length; c++) {
      String s = format(values[c]);
      boolean numeric = values[c] instanceof Number;
      String pad = " ".repeat(width[c] - s.length());
      sb.append(c == 0 ? "" : "  ").append(numeric ? pad + s : s + pad);
    }
    sb.append('\n');
  }

  /** Writes the table as CSV (RFC 4180 quoting). */
  public void writeCsv(Path file) throws IOException {
    StringBuilder sb = new StringBuilder();
    appendCsv(sb, columns.toArray());
    for (Object[] r : rows) {
      appendCsv(sb, r);
    }
    Files.writeString(file, sb.toString(), StandardCharsets.UTF_8);
  }

  private static void appendCsv(StringBuilder sb, Object[] values) {
    for (int c = 0; c < values.length; c++) {
      String s = format(values[c]);
      if (s.contains(",") || s.contains("\"") || s.contains("\n")) {
        s = "\"" + s.replace("\"", "\"\"") + "\"";
      }
      sb.append(c == 0 ? "" : ",").append(s);
    }
    sb.append('\n');
  }

  /** Reads a CSV written by {@link #writeCsv}; cells that parse as numbers become doubles. */
  public static BenchReport readCsv(String title, Path file) throws IOException {
    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    BenchReport report = new BenchReport(title, parseCsvLine(lines.get(0)));
    for (String line : lines.subList(1, lines.size())) {
      if (line.isEmpty()) {
        continue;
      }
      List<String> cells = parseCsvLine(line);
      Object[] values = new Object[cells.size()];
      for (int i = 0; i < values.length; i++) {
        String s = cells.get(i);
        try {
          values[i] = s.isEmpty() ? s : (Object) Double.parseDouble(s);
        } catch (NumberFormatException e) {
          values[i] = s;
        }
      }
      report.row(values);
    }
    return report;
  }

  private static List<String> parseCsvLine(String line) {
    List<String> out = new ArrayList<>();
    StringBuilder cell = new StringBuilder();
    boolean quoted = false;
    for (int i = 0; i < line.length(); i++) {
      char ch = line.charAt(i);
      if (quoted) {
        if (ch == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
          cell.append('"');
          i++;
        } else if (ch == '"') {
          quoted = false;
        } else {
          cell.append(ch);
        }
      } else if (ch == '"') {
        quoted = true;
      } else if (ch == ',') {
        out.add(cell.toString());
        cell.setLength(0);
      } else {
        cell.append(ch);
      }
    }
    out.add(cell.toString());
    return out;
  }

  /**
   * Draws one horizontal bar per row: {@code labelColumn} names it, {@code valueColumn} sizes it (rows
   * whose value is not a number get no bar). A dashed line marks {@code reference} if it is positive.
   */
  public void writeBarChart(Path file, String labelColumn, String valueColumn, String unit, double reference,
      String referenceLabel) throws IOException {
    System.setProperty("java.awt.headless", "true");
    int label = indexOf(labelColumn);
    int value = indexOf(valueColumn);
    int barHeight = 26;
    int top = 50;
    int left = 260;
    int plotWidth = 560;
    int height = top + rows.size() * barHeight + 50;
    BufferedImage image = new BufferedImage(left + plotWidth + 90, height, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = image.createGraphics();
    try {
      g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
      g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
      g.setColor(Color.WHITE);
      g.fillRect(0, 0, image.getWidth(), height);
      g.setColor(Color.BLACK);
      g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 15));
      g.drawString(title, 10, 25);
      g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
      double max = Math.max(reference, 1e-9);
      for (Object[] r : rows) {
        if (r[value] instanceof Number n) {
          max = Math.max(max, n.doubleValue());
        }
      }
      FontMetrics fm = g.getFontMetrics();
      for (int i = 0; i < rows.size(); i++) {
        Object[] r = rows.get(i);
        int y = top + i * barHeight;
        String name = format(r[label]);
        g.setColor(Color.BLACK);
        g.drawString(name, left - 10 - fm.stringWidth(name), y + 17);
        if (r[value] instanceof Number n && !Double.isNaN(n.doubleValue())) {
          int w = (int) Math.round(plotWidth * n.doubleValue() / max);
          g.setColor(new Color(0x3B75AF));
          g.fillRect(left, y + 4, Math.max(w, 1), barHeight - 8);
          g.setColor(Color.BLACK);
          g.drawString(format(n.doubleValue()), left + w + 5, y + 17);
        } else {
          g.setColor(Color.GRAY);
          g.drawString("n/a", left + 5, y + 17);
        }
      }
      int bottom = top + rows.size() * barHeight;
      g.setColor(Color.BLACK);
      g.drawLine(left, top, left, bottom);
      g.drawString("0", left - 3, bottom + 18);
      String maxText = format(max) + " " + unit;
      g.drawString(maxText, left + plotWidth - fm.stringWidth(maxText) / 2, bottom + 18);
      if (reference > 0) {
        int x = left + (int) Math.round(plotWidth * reference / max);
        g.setColor(new Color(0xC03030));
        g.setStroke(new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10, new float[] {6, 4}, 0));
        g.drawLine(x, top - 5, x, bottom);
        g.drawString(referenceLabel, Math.max(left, x - fm.stringWidth(referenceLabel) / 2), bottom + 36);
      }
    } finally {
      g.dispose();
    }
    ImageIO.write(image, "png", file.toFile());
  }

  /**
   * Redraws a chart from a CSV (e.g. one written on a machine without fonts):
   * {@code BenchReport CSV PNG LABEL_COLUMN VALUE_COLUMN UNIT [REFERENCE REFERENCE_LABEL [TITLE]]}.
   */
  public static void main(String[] args) throws IOException {
    if (args.length < 5) {
      System.err.println(
          "usage: BenchReport CSV PNG LABEL_COLUMN VALUE_COLUMN UNIT [REFERENCE REFERENCE_LABEL [TITLE]]");
      System.exit(2);
    }
    String title = args.length > 7 ? args[7] : Path.of(args[0]).getFileName().toString();
    BenchReport report = readCsv(title, Path.of(args[0]));
    double reference = args.length > 5 ? Double.parseDouble(args[5]) : 0;
    report.writeBarChart(Path.of(args[1]), args[2], args[3], args[4], reference, args.length > 6 ? args[6] : "");
  }
}
