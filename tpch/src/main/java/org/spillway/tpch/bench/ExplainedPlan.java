package org.spillway.tpch.bench;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What Spillway's EXPLAIN says about a query's pipeline: the device, transfer method and filter variant chosen,
 * the bytes the scan must move over the link, the cost model's predictions, and why the CPU runs it if it does.
 *
 * @param predictedGpuMillis NaN where the cost model was not asked (device=cpu, no GPU)
 * @param shared whether the CPU backend shares the GPU's scan
 */
record ExplainedPlan(String device, String transfer, String filterVariant, long planBytes, double predictedGpuMillis,
    double predictedCpuMillis, String cpuBecause, boolean shared) {
  // the pipeline's scan says how it runs: a sort or a projection above it may run on the CPU over its few rows (Q1)
  private static final Pattern DEVICE = Pattern.compile("SpillwayTableScan\\(.*?device=\\[(\\w+)]");
  private static final Pattern TRANSFER = Pattern.compile("SpillwayTableScan\\(.*?transfer=\\[([^\\]]+)]");
  private static final Pattern SHARED = Pattern.compile("SpillwayTableScan\\(.*?coprocess=\\[cpu]");
  private static final Pattern FILTER_VARIANT = Pattern.compile("SpillwayFilter\\(.*?variant=\\[(\\w+)]");
  private static final Pattern SCAN_BYTES = Pattern.compile("SpillwayTableScan\\(.*?linkBytes=\\[(\\d+)]");
  private static final Pattern COST =
      Pattern.compile("cost=\\[(?:gpu ([\\d.]+) ms \\([^)]*\\), )?cpu ([\\d.]+) ms(?:, shared [\\d.]+ ms)?]");
  private static final Pattern CPU_BECAUSE = Pattern.compile("cpuBecause=\\[([^\\]]*)");

  /** Reads the plan text of {@code EXPLAIN PLAN FOR} a query over one Spillway pipeline. */
  static ExplainedPlan parse(String plan) {
    Matcher cost = COST.matcher(plan);
    boolean costed = cost.find();
    return new ExplainedPlan(first(DEVICE, plan, "?"), first(TRANSFER, plan, "?"), first(FILTER_VARIANT, plan, ""),
        Long.parseLong(first(SCAN_BYTES, plan, "0")),
        costed && cost.group(1) != null ? Double.parseDouble(cost.group(1)) : Double.NaN,
        costed ? Double.parseDouble(cost.group(2)) : Double.NaN, first(CPU_BECAUSE, plan, null),
        SHARED.matcher(plan).find());
  }

  private static String first(Pattern pattern, String text, String otherwise) {
    Matcher m = pattern.matcher(text);
    return m.find() ? m.group(1) : otherwise;
  }

  /** "gpu zero-copy branching", "gpu+cpu pinned copy predication" (a shared scan), "cpu": how the pipeline was planned. */
  String ranAs() {
    return device.equals("gpu") ? String.join(" ", shared ? "gpu+cpu" : "gpu", transfer, filterVariant).trim() : "cpu";
  }
}
