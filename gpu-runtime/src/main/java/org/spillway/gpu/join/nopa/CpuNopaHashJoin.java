package org.spillway.gpu.join.nopa;

import org.spillway.gpu.join.BuildTable;
import org.spillway.gpu.join.EquiJoin;
import org.spillway.gpu.join.JoinInput;
import org.spillway.gpu.join.KeyRange;
import org.spillway.gpu.join.JoinOutput;
import org.spillway.gpu.join.JoinResult;
import org.spillway.gpu.join.JoinSink;
import org.spillway.gpu.join.JoinType;
import org.spillway.gpu.join.JoinWorkers;
import org.spillway.gpu.join.LinearProbingTable;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The no-partitioning hash join (NOPA) of Pump Up the Volume on CPU threads: one shared table built with CAS,
 * then probed by morsels of S. The table is NOPA's perfect-hash array when the build keys are dense and
 * unique, and a linear-probing table otherwise.
 */
public final class CpuNopaHashJoin implements EquiJoin {
  /** Rows per morsel: large enough to amortize scheduling, small enough to balance two to many threads. */
  static final int MORSEL_ROWS = 1 << 14;

  /**
   * Probe keys whose table words are loaded together before they are probed; on the development machine 8
   * was 2x slower than 32, and 128 about 20% faster than 32 (A dense, one thread).
   */
  static final int PREFETCH_GROUP = 128;
  @SuppressWarnings("unused")
  private static volatile long touchSink;

  private final JoinWorkers workers;

  public CpuNopaHashJoin(int threads) {
    this.workers = new JoinWorkers(threads, "nopa-join");
  }

  @Override
  public String name() {
    return "nopa";
  }

  @Override
  public JoinResult join(JoinInput build, JoinInput probe, JoinType type, JoinOutput output) {
    build.checkUsableFor(output, "build");
    probe.checkUsableFor(output, "probe");
    KeyRange range = keyRange(build, workers);
    String algorithm = "nopa/perfect-hash";
    BuildTable table = PerfectHashTable.fits(range.min(), range.max(), range.rows())
        ? buildPerfect(build, output, range) : null;
    if (table == null) {
      algorithm = "nopa/linear-probing";
      table = buildLinearProbing(build, output, range.rows());
    }
    JoinSink[] sinks = JoinSink.create(output, workers.threads());
    BuildTable built = table;
    workers.forEachMorsel(JoinWorkers.morselCount(probe.rows(), MORSEL_ROWS), (w, m) ->
        probeMorsel(built, probe, m, type, output, sinks[w]));
    return JoinSink.merge(output, sinks, algorithm);
  }

  /** Builds the array table, or returns null as soon as a duplicate key shows the keys are not unique. */
  private PerfectHashTable buildPerfect(JoinInput build, JoinOutput output, KeyRange range) {
    PerfectHashTable table = new PerfectHashTable(range.min(), (int) (range.max() - range.min() + 1));
    AtomicBoolean duplicate = new AtomicBoolean();
    workers.forEachMorsel(JoinWorkers.morselCount(build.rows(), MORSEL_ROWS), (w, m) -> {
      int end = Math.min(build.rows(), (m + 1) * MORSEL_ROWS);
      for (int r = m * MORSEL_ROWS; r < end && !duplicate.get(); r++) {
        if (!build.isNull(r) && !table.insertConcurrent(build.key(r), build.value(r, output))) {
          duplicate.set(true);
        }
      }
    });
    return duplicate.get() ? null : table;
  }

  private LinearProbingTable buildLinearProbing(JoinInput build, JoinOutput output, long rows) {
    LinearProbingTable table = new LinearProbingTable(0);
    table.reset(rows);
    workers.forEachMorsel(JoinWorkers.morselCount(build.rows(), MORSEL_ROWS), (w, m) -> {
      int end = Math.min(build.rows(), (m + 1) * MORSEL_ROWS);
      for (int r = m * MORSEL_ROWS; r < end; r++) {
        if (!build.isNull(r)) {
          table.insertConcurrent(build.key(r), build.value(r, output));
        }
      }
    });
    return table;
  }

  private static void probeMorsel(BuildTable table, JoinInput probe, int morsel, JoinType type, JoinOutput output,
      JoinSink sink) {
    int end = Math.min(probe.rows(), (morsel + 1) * MORSEL_ROWS);
    boolean existenceOnly = type.existenceOnly();
    long touched = 0;
    for (int group = morsel * MORSEL_ROWS; group < end; group += PREFETCH_GROUP) {
      int groupEnd = Math.min(end, group + PREFETCH_GROUP);
      // The loads of this loop are independent, so the CPU keeps many misses in flight; the probes below
      // then mostly hit the cache.
      for (int r = group; r < groupEnd; r++) {
        touched += table.touch(probe.key(r));
      }
      for (int r = group; r < groupEnd; r++) {
        long value = probe.value(r, output);
        int matches = probe.isNull(r) ? 0 : table.probe(probe.key(r), value, sink, existenceOnly);
        type.finishProbeRow(matches, value, sink);
      }
    }
    // Publishing the touched words keeps the JIT from dropping the loads as dead code.
    touchSink = touched;
  }

  @Override
  public void close() {
    workers.close();
  }

  /** Minimum, maximum and count of the non-NULL build keys, which decide between the two tables. */
  private static KeyRange keyRange(JoinInput build, JoinWorkers workers) {
    int morsels = JoinWorkers.morselCount(build.rows(), MORSEL_ROWS);
    KeyRange[] parts = new KeyRange[morsels];
    workers.forEachMorsel(morsels, (w, m) -> parts[m] = KeyRange.ofRows(m * MORSEL_ROWS,
        Math.min(build.rows(), (m + 1) * MORSEL_ROWS), r -> !build.isNull(r), build::key));
    return KeyRange.combine(parts);
  }
}
