package org.spillway.adapter;

import org.apache.calcite.plan.RelOptPlanner;
import org.apache.calcite.rel.RelNode;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Why operators above Spillway subtrees stayed in Calcite's enumerable convention, per scanned table, so that the
 * converter can show it in EXPLAIN as {@code fallback=[...]}. One instance lives in each planner's context
 * ({@link SpillwayPrepare} puts it there) and dies with the planner; a planner without one records nothing.
 */
final class SpillwayFallbacks {
  private final Map<String, Set<String>> reasons = new HashMap<>();

  /** Records why a logical node was not converted, under every Spillway scan below it (none: ignored). */
  static void record(RelNode rejected, String reason) {
    SpillwayFallbacks fallbacks = of(rejected.getCluster().getPlanner());
    if (fallbacks == null) {
      return;
    }
    String entry = rejected.getRelTypeName().replace("Logical", "") + ": " + reason;
    for (RelNode input : rejected.getInputs()) {
      for (SpillwayTableScan scan : SpillwayFields.scansOf(input)) {
        synchronized (fallbacks.reasons) {
          fallbacks.reasons.computeIfAbsent(key(scan), t -> new TreeSet<>()).add(entry);
        }
      }
    }
  }

  /** The recorded reasons for operators over any of the given scans, sorted. */
  static List<String> of(RelOptPlanner planner, List<SpillwayTableScan> scans) {
    SpillwayFallbacks fallbacks = of(planner);
    if (fallbacks == null) {
      return List.of();
    }
    Set<String> out = new TreeSet<>();
    synchronized (fallbacks.reasons) {
      scans.forEach(scan -> out.addAll(fallbacks.reasons.getOrDefault(key(scan), Set.of())));
    }
    return List.copyOf(out);
  }

  private static SpillwayFallbacks of(RelOptPlanner planner) {
    return planner.getContext().unwrap(SpillwayFallbacks.class);
  }

  private static String key(SpillwayTableScan scan) {
    return String.join(".", scan.getTable().getQualifiedName());
  }
}
