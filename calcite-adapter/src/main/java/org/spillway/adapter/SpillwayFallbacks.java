package org.spillway.adapter;

import org.apache.calcite.plan.RelOptPlanner;
import org.apache.calcite.plan.volcano.RelSubset;
import org.apache.calcite.plan.volcano.VolcanoPlanner;
import org.apache.calcite.rel.RelNode;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Why operators above Spillway subtrees stayed in Calcite's enumerable convention, per scanned table, so that the
 * converter can show it in EXPLAIN as {@code fallback=[...]}. One instance lives in each planner's context
 * ({@link SpillwayPrepare} puts it there) and dies with the planner; a planner without one records nothing.
 *
 * <p>A rule's rejection is not yet a fallback: another rule may convert the same operator (a join that is no
 * equi-join becomes a nested-loop join). So a reason counts only while the rejected operator's equivalence set
 * has no Spillway node.
 */
final class SpillwayFallbacks {
  private record Rejection(RelNode rejected, String reason) {}

  private final Map<String, List<Rejection>> reasons = new HashMap<>();

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
          fallbacks.reasons.computeIfAbsent(key(scan), t -> new ArrayList<>()).add(new Rejection(rejected, entry));
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
      for (SpillwayTableScan scan : scans) {
        for (Rejection r : fallbacks.reasons.getOrDefault(key(scan), List.of())) {
          if (!convertedElsewhere(planner, r.rejected())) {
            out.add(r.reason());
          }
        }
      }
    }
    return List.copyOf(out);
  }

  /** Whether another rule gave the rejected operator a Spillway equivalent (only a Volcano planner can tell). */
  private static boolean convertedElsewhere(RelOptPlanner planner, RelNode rejected) {
    if (!(planner instanceof VolcanoPlanner volcano) || volcano.getSubset(rejected) == null) {
      return false;
    }
    RelSubset spillway = volcano.getSubset(rejected, rejected.getTraitSet().replace(SpillwayRel.CONVENTION));
    return spillway != null && spillway.getBest() != null;
  }

  private static SpillwayFallbacks of(RelOptPlanner planner) {
    return planner.getContext().unwrap(SpillwayFallbacks.class);
  }

  private static String key(SpillwayTableScan scan) {
    return String.join(".", scan.getTable().getQualifiedName());
  }
}
