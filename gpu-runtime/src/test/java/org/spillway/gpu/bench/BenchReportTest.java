package org.spillway.gpu.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Table, CSV round trip and PNG chart of the reusable benchmark report. */
class BenchReportTest {
  private static BenchReport sample() {
    return new BenchReport("t", List.of("method", "GB/s", "note"))
        .row("zero-copy", 48.68, "")
        .row("staged, 8 threads", 29.6, "note, with comma \"quoted\"")
        .row("coherence", Double.NaN, "unsupported");
  }

  @Test
  void tableAlignsAndCsvRoundTrips(@TempDir Path dir) throws IOException {
    BenchReport r = sample();
    String table = r.toTable();
    assertTrue(table.contains("48.68") && table.contains("coherence"), table);
    Path csv = dir.resolve("r.csv");
    r.writeCsv(csv);
    BenchReport back = BenchReport.readCsv("t", csv);
    assertEquals(3, back.rowCount());
    assertEquals(48.68, (Double) back.cell(0, "GB/s"), 1e-9);
    assertEquals("note, with comma \"quoted\"", back.cell(1, "note"));
    assertEquals("", back.cell(2, "GB/s"));
  }

  @Test
  void wrongRowWidthAndUnknownColumnAreErrors() {
    assertThrows(IllegalArgumentException.class, () -> sample().row("only one"));
    var e = assertThrows(IllegalArgumentException.class, () -> sample().cell(0, "nope"));
    assertTrue(e.getMessage().contains("nope"));
  }

  @Test
  void barChartIsAPng(@TempDir Path dir) throws IOException {
    Path png = dir.resolve("r.png");
    try {
      sample().writeBarChart(png, "method", "GB/s", "GB/s", 53.2, "raw");
    } catch (RuntimeException | Error e) {  // a JRE without fonts cannot draw text: nothing to check there
      Assumptions.abort("no fonts for Java2D: " + e);
    }
    BufferedImage image = ImageIO.read(Files.newInputStream(png));
    assertTrue(image.getWidth() > 100 && image.getHeight() > 100);
  }
}
