package org.spillway.tpch.bench;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the per-pipeline trace Spillway prints to stderr when the system property {@code spillway.trace} is
 * true ("[spillway] gpu pipeline over SpillwayTable {lineitem} (zero-copy): 31.2 ms, 1.680 GB streamed in
 * 30.1 ms (55.8 GB/s)"; older builds left out "over TABLE"), which is how a benchmark that reaches Spillway through JDBC alone learns the pipeline's own time and link bytes. Trace
 * lines are consumed; other output passes through. Lines it cannot read leave the last run unknown.
 */
final class PipelineTrace {
  private static final Pattern GPU = Pattern.compile("\\[spillway] gpu pipeline (?:over .+? )?\\((.+?)\\): ([\\d.]+) ms"
      + "(?:, ([\\d.]+) GB streamed in ([\\d.]+) ms.*)?(?:, ran on the CPU: (.*))?");
  private static final Pattern CPU =
      Pattern.compile("\\[spillway] cpu pipeline (?:over .+? )?\\((\\d+) threads\\): ([\\d.]+) ms");

  /** One pipeline run: where it ran, its wall time, the bytes it streamed and how long streaming took. */
  record Run(String device, double millis, double streamedGb, double streamMillis, String fallback) {}

  private volatile Run last;

  /** A trace that reads only the lines given to {@link #accept} (see {@link #install()}). */
  PipelineTrace() {}

  /** Turns the trace on and captures it from {@link System#err} from now on. */
  static PipelineTrace install() {
    PipelineTrace trace = new PipelineTrace();
    PrintStream original = System.err;
    System.setProperty("spillway.trace", "true");
    System.setErr(new PrintStream(new LineSplitter(trace, original), true, StandardCharsets.UTF_8));
    return trace;
  }

  /** Forgets the last run (call before a statement). */
  void reset() {
    last = null;
  }

  /** The last pipeline run traced since {@link #reset()}, or null. */
  Run last() {
    return last;
  }

  /** Parses one line; true if it was a trace line. */
  boolean accept(String line) {
    Matcher gpu = GPU.matcher(line);
    if (gpu.matches()) {
      last = new Run("gpu", Double.parseDouble(gpu.group(2)), gpu.group(3) == null ? Double.NaN
          : Double.parseDouble(gpu.group(3)), gpu.group(4) == null ? Double.NaN : Double.parseDouble(gpu.group(4)),
          gpu.group(5));
      return true;
    }
    Matcher cpu = CPU.matcher(line);
    if (cpu.matches()) {
      last = new Run("cpu", Double.parseDouble(cpu.group(2)), Double.NaN, Double.NaN, null);
      return true;
    }
    return line.startsWith("[spillway] ");
  }

  /** Collects bytes into lines; trace lines go to the trace, others to the original stream. */
  private static final class LineSplitter extends OutputStream {
    private final PipelineTrace trace;
    private final PrintStream original;
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();

    LineSplitter(PipelineTrace trace, PrintStream original) {
      this.trace = trace;
      this.original = original;
    }

    @Override public synchronized void write(int b) {
      if (b == '\n') {
        String text = line.toString(StandardCharsets.UTF_8);
        line.reset();
        if (!trace.accept(text)) {
          original.println(text);
        }
      } else {
        line.write(b);
      }
    }
  }
}
