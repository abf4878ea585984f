package org.spillway.gpu.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.imageio.ImageIO;

/**
 * A line chart of a {@link BenchReport}: one line per value of a series column, x and y from numeric columns,
 * the x axis logarithmic (base 2) where asked (sizes, ratios) so that a sweep's shape reads as in the papers'
 * figures. Rows whose x or y is not a number are left out. Plain Java2D, headless.
 */
final class BenchLineChart {
  private static final Color[] PALETTE = {new Color(0x3B75AF), new Color(0xEF8636), new Color(0x519E3E),
      new Color(0xC53A32), new Color(0x8D69B8), new Color(0x84584E), new Color(0xD57DBE), new Color(0x7F7F7F),
      new Color(0xBCBD45), new Color(0x58BBCC)};

  private BenchLineChart() {}

  /** Draws {@code report}'s {@code y} over {@code x}, one line per {@code series} value, into {@code file}. */
  static void write(BenchReport report, Path file, String series, String x, String y, boolean logX, String xLabel)
      throws IOException {
    System.setProperty("java.awt.headless", "true");
    Map<String, List<double[]>> lines = new LinkedHashMap<>();
    double minX = Double.MAX_VALUE;
    double maxX = -Double.MAX_VALUE;
    double maxY = 1e-9;
    for (int i = 0; i < report.rowCount(); i++) {
      if (!(report.cell(i, x) instanceof Number nx) || !(report.cell(i, y) instanceof Number ny)) {
        continue;
      }
      double px = logX ? Math.log(Math.max(nx.doubleValue(), 1e-9)) / Math.log(2) : nx.doubleValue();
      double py = ny.doubleValue();
      if (Double.isNaN(px) || Double.isNaN(py)) {
        continue;
      }
      lines.computeIfAbsent(String.valueOf(report.cell(i, series)), k -> new ArrayList<>()).add(new double[] {px, py});
      minX = Math.min(minX, px);
      maxX = Math.max(maxX, px);
      maxY = Math.max(maxY, py);
    }
    if (maxX == minX) {
      maxX = minX + 1;
    }
    int left = 70;
    int top = 45;
    int plotW = 620;
    int plotH = 360;
    int legendW = 210;
    BufferedImage image = new BufferedImage(left + plotW + legendW, top + plotH + 60, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = image.createGraphics();
    try {
      g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
      g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
      g.setColor(Color.WHITE);
      g.fillRect(0, 0, image.getWidth(), image.getHeight());
      g.setColor(Color.BLACK);
      g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 14));
      g.drawString(report.title(), 10, 22);
      g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
      FontMetrics fm = g.getFontMetrics();
      int bottom = top + plotH;
      g.drawLine(left, top, left, bottom);
      g.drawLine(left, bottom, left + plotW, bottom);
      int decimals = Math.max(2, 1 - (int) Math.floor(Math.log10(maxY / 4)));
      for (int t = 0; t <= 4; t++) {  // y ticks
        double v = maxY * t / 4;
        int py = bottom - (int) Math.round(plotH * v / maxY);
        g.setColor(new Color(0xE0E0E0));
        g.drawLine(left + 1, py, left + plotW, py);
        g.setColor(Color.BLACK);
        String text = String.format(Locale.ROOT, "%." + decimals + "f", v);
        g.drawString(text, left - 6 - fm.stringWidth(text), py + 4);
      }
      List<Double> ticks = new ArrayList<>();
      for (List<double[]> points : lines.values()) {
        points.forEach(p -> {
          if (!ticks.contains(p[0])) {
            ticks.add(p[0]);
          }
        });
      }
      for (double tx : ticks) {  // x ticks at the measured points
        int px = xPixel(tx, minX, maxX, left, plotW);
        g.drawLine(px, bottom, px, bottom + 4);
        String text = logX ? format(Math.pow(2, tx)) : format(tx);
        g.drawString(text, px - fm.stringWidth(text) / 2, bottom + 18);
      }
      g.drawString(xLabel + (logX ? " (log scale)" : ""), left + plotW / 2 - fm.stringWidth(xLabel) / 2, bottom + 40);
      g.drawString(y, 8, top - 8);
      int c = 0;
      for (Map.Entry<String, List<double[]>> line : lines.entrySet()) {
        Color color = PALETTE[c % PALETTE.length];
        List<double[]> points = line.getValue();
        points.sort((a, b) -> Double.compare(a[0], b[0]));
        g.setColor(color);
        g.setStroke(new BasicStroke(2f));
        int[] prev = null;
        for (double[] p : points) {
          int[] at = {xPixel(p[0], minX, maxX, left, plotW), bottom - (int) Math.round(plotH * p[1] / maxY)};
          g.fillOval(at[0] - 3, at[1] - 3, 7, 7);
          if (prev != null) {
            g.drawLine(prev[0], prev[1], at[0], at[1]);
          }
          prev = at;
        }
        int ly = top + 10 + 18 * c;
        g.drawLine(left + plotW + 15, ly - 4, left + plotW + 35, ly - 4);
        g.setColor(Color.BLACK);
        g.drawString(line.getKey(), left + plotW + 40, ly);
        c++;
      }
    } finally {
      g.dispose();
    }
    ImageIO.write(image, "png", file.toFile());
  }

  private static int xPixel(double x, double min, double max, int left, int width) {
    return left + 10 + (int) Math.round((width - 20) * (x - min) / (max - min));
  }

  private static String format(double v) {
    return Math.abs(v - Math.rint(v)) < 1e-9 ? Long.toString(Math.round(v)) : String.format(Locale.ROOT, "%.2f", v);
  }
}
