package org.spillway.tpch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ConsoleProgressBarTest {
  private static String drive(boolean interactive) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    ConsoleProgressBar bar = new ConsoleProgressBar(new PrintStream(bytes, true, StandardCharsets.UTF_8), interactive);
    bar.onProgress("lineitem", 0, 6_000_000);
    bar.onProgress("orders", 0, 1_500_000);
    for (long done = 1; done <= 1_500; done++) {
      bar.onProgress("lineitem", done * 4_000, 6_000_000);
      bar.onProgress("orders", done * 1_000, 1_500_000);
    }
    bar.onComplete();
    return bytes.toString(StandardCharsets.UTF_8);
  }

  @Test
  void notOnATerminalPrintsFewLines() {
    String output = drive(false);
    assertFalse(output.contains("\r"));
    long lines = output.lines().count();
    // at most one line per 10% and per finished table, plus the summary
    assertTrue(lines >= 3 && lines <= 10 + 2 + 1, lines + " lines:\n" + output);
    assertTrue(output.contains("lineitem: 6.00M rows done"), output);
    assertTrue(output.strip().matches("(?s).*\ndone: 7\\.50M rows in 2 tables in \\d+\\.\\d s"), output);
  }

  @Test
  void onATerminalRedrawsOneLineInPlace() {
    String output = drive(true);
    assertTrue(output.startsWith("\r["), output.substring(0, 20));
    assertEquals(2, output.chars().filter(c -> c == '\n').count(), "one redrawn line and the summary");
    assertTrue(output.contains("100%  7.50M/7.50M rows"), output);
    assertTrue(output.contains("2/2 tables done"), output);
  }

  @Test
  void formatsNumbersAndDurations() {
    assertEquals("950", ConsoleProgressBar.human(950));
    assertEquals("6.00M", ConsoleProgressBar.human(6_001_215));
    assertEquals("60.2K", ConsoleProgressBar.human(60_175));
    assertEquals("1m05s", ConsoleProgressBar.formatSeconds(65));
    assertEquals("2h03m", ConsoleProgressBar.formatSeconds(2 * 3600 + 3 * 60));
  }
}
