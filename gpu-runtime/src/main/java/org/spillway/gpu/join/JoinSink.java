package org.spillway.gpu.join;

import java.util.ArrayList;
import java.util.List;

/**
 * Where one worker thread puts the output of its probes; values are row indices when materializing and
 * payloads when aggregating (see {@link JoinInput#value}). Each worker owns one sink, so no locking.
 */
public abstract class JoinSink {
  /** A matching (build, probe) pair. */
  public abstract void pair(long buildValue, long probeValue);

  /** An output row that carries only its probe side (SEMI, ANTI, unmatched LEFT_OUTER rows). */
  abstract void probeOnly(long probeValue);

  public static JoinSink[] create(JoinOutput output, int workers) {
    JoinSink[] sinks = new JoinSink[workers];
    for (int w = 0; w < workers; w++) {
      sinks[w] = output == JoinOutput.MATERIALIZED ? new PairSink() : new AggregateSink();
    }
    return sinks;
  }

  /** Combines the workers' sinks into the join's result. */
  public static JoinResult merge(JoinOutput output, JoinSink[] sinks, String algorithm) {
    if (output == JoinOutput.AGGREGATED) {
      long count = 0;
      long buildSum = 0;
      long probeSum = 0;
      for (JoinSink s : sinks) {
        AggregateSink a = (AggregateSink) s;
        count += a.count;
        buildSum += a.buildSum;
        probeSum += a.probeSum;
      }
      return JoinResult.aggregated(algorithm, count, buildSum, probeSum);
    }
    List<RowIdColumn> build = new ArrayList<>();
    List<RowIdColumn> probe = new ArrayList<>();
    for (JoinSink s : sinks) {
      build.add(((PairSink) s).buildRows);
      probe.add(((PairSink) s).probeRows);
    }
    return JoinResult.materialized(algorithm, RowIdColumn.concat(build), RowIdColumn.concat(probe));
  }

  /** Materializes pairs of row indices. */
  private static final class PairSink extends JoinSink {
    final RowIdColumn buildRows = new RowIdColumn();
    final RowIdColumn probeRows = new RowIdColumn();

    @Override
    public void pair(long buildValue, long probeValue) {
      buildRows.add((int) buildValue);
      probeRows.add((int) probeValue);
    }

    @Override
    void probeOnly(long probeValue) {
      buildRows.add(-1);
      probeRows.add((int) probeValue);
    }
  }

  /** Counts output rows and sums payloads, the join-aggregate of the papers' workloads. */
  private static final class AggregateSink extends JoinSink {
    long count;
    long buildSum;
    long probeSum;

    @Override
    public void pair(long buildValue, long probeValue) {
      count++;
      buildSum += buildValue;
      probeSum += probeValue;
    }

    @Override
    void probeOnly(long probeValue) {
      count++;
      probeSum += probeValue;
    }
  }
}
