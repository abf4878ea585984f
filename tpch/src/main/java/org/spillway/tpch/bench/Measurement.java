package org.spillway.tpch.bench;

import java.util.Arrays;
import java.util.List;

/**
 * The timed runs of one query on one configuration: statement seconds, the traced pipeline times and link bytes
 * (medians; NaN where not traced), the plan EXPLAIN described (null for DuckDB), the last result, or the error.
 */
record Measurement(Config config, int query, double[] seconds, double pipelineSeconds, double movedGb,
    double streamSeconds, String fallback, ExplainedPlan plan, ResultRows rows, String error) {

  static Measurement of(Config config, int query, double[] seconds, List<PipelineTrace.Run> runs, ExplainedPlan plan,
      ResultRows rows) {
    double[] pipeline = runs.stream().mapToDouble(r -> r.millis() / 1e3).toArray();
    double[] moved = runs.stream().mapToDouble(PipelineTrace.Run::streamedGb).filter(v -> !Double.isNaN(v)).toArray();
    double[] stream = runs.stream().mapToDouble(r -> r.streamMillis() / 1e3).filter(v -> !Double.isNaN(v)).toArray();
    String fallback = runs.stream().map(PipelineTrace.Run::fallback).filter(f -> f != null).findFirst().orElse(null);
    return new Measurement(config, query, seconds.clone(), median(pipeline), median(moved), median(stream), fallback,
        plan, rows, null);
  }

  static Measurement failed(Config config, int query, String error) {
    return new Measurement(config, query, new double[0], Double.NaN, Double.NaN, Double.NaN, null, null, null, error);
  }

  double median() {
    return median(seconds);
  }

  double min() {
    return seconds.length == 0 ? Double.NaN : Arrays.stream(seconds).min().getAsDouble();
  }

  double max() {
    return seconds.length == 0 ? Double.NaN : Arrays.stream(seconds).max().getAsDouble();
  }

  /** The median (mean of the middle two for an even count), NaN of nothing. */
  static double median(double[] values) {
    if (values.length == 0) {
      return Double.NaN;
    }
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int mid = sorted.length / 2;
    return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  }
}
