package org.spillway.adapter;

import org.apache.calcite.plan.RelOptPlanner;
import org.apache.calcite.rel.RelNode;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.WeakHashMap;

/**
 * Remembers, per planner and scanned table, why operators above Spillway subtrees stayed in Calcite's
 * enumerable convention, so that the converter can show it in EXPLAIN as {@code fallback=[...]}.
 */
final class SpillwayFallbacks {
  private static final Map<RelOptPlanner, Map<String, Set<String>>> REASONS = new WeakHashMap<>();

  private SpillwayFallbacks() {}

  /** Records why a logical node was not converted, under every Spillway scan below it (none: ignored). */
  static void record(RelNode rejected, String reason) {
    String entry = rejected.getRelTypeName().replace("Logical", "") + ": " + reason;
    for (RelNode input : rejected.getInputs()) {
      for (SpillwayTableScan scan : SpillwayFields.scansOf(input)) {
        synchronized (REASONS) {
          REASONS.computeIfAbsent(rejected.getCluster().getPlanner(), p -> new HashMap<>())
              .computeIfAbsent(key(scan), t -> new TreeSet<>())
              .add(entry);
        }
      }
    }
  }

  /** The recorded reasons for operators over any of the given scans, sorted. */
  static List<String> of(RelOptPlanner planner, List<SpillwayTableScan> scans) {
    Set<String> out = new TreeSet<>();
    synchronized (REASONS) {
      Map<String, Set<String>> reasons = REASONS.getOrDefault(planner, Map.of());
      scans.forEach(scan -> out.addAll(reasons.getOrDefault(key(scan), Set.of())));
    }
    return List.copyOf(out);
  }

  private static String key(SpillwayTableScan scan) {
    return String.join(".", scan.getTable().getQualifiedName());
  }
}
