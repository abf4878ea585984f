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
 * Remembers, per planner and scanned table, why operators above a Spillway subtree stayed in Calcite's
 * enumerable convention, so that the converter can show it in EXPLAIN as {@code fallback=[...]}.
 */
final class SpillwayFallbacks {
  private static final Map<RelOptPlanner, Map<String, Set<String>>> REASONS = new WeakHashMap<>();

  private SpillwayFallbacks() {}

  /** Records why a logical node was not converted; ignored unless its input is a chain over a Spillway scan. */
  static void record(RelNode rejected, String reason) {
    SpillwayFields.scanOf(rejected.getInput(0)).ifPresent(scan -> {
      synchronized (REASONS) {
        REASONS.computeIfAbsent(rejected.getCluster().getPlanner(), p -> new HashMap<>())
            .computeIfAbsent(key(scan), t -> new TreeSet<>())
            .add(rejected.getRelTypeName().replace("Logical", "") + ": " + reason);
      }
    });
  }

  /** The recorded reasons for operators over the given scan, sorted. */
  static List<String> of(RelOptPlanner planner, SpillwayTableScan scan) {
    synchronized (REASONS) {
      return List.copyOf(REASONS.getOrDefault(planner, Map.of()).getOrDefault(key(scan), Set.of()));
    }
  }

  private static String key(SpillwayTableScan scan) {
    return String.join(".", scan.getTable().getQualifiedName());
  }
}
