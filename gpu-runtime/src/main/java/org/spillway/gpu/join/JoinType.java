package org.spillway.gpu.join;

/**
 * Join semantics over build side R and probe side S; a NULL key never matches anything.
 *
 * <p>SEMI and ANTI return probe rows (with / without a match, NOT EXISTS semantics: a probe row whose key
 * is NULL has no match, so ANTI returns it). LEFT_OUTER keeps every probe row; unmatched ones pair with
 * build row -1 (a NULL build side).
 */
public enum JoinType {
  INNER(false) {
    @Override
    public void finishProbeRow(int matches, long probeValue, JoinSink sink) {
    }
  },
  LEFT_OUTER(false) {
    @Override
    public void finishProbeRow(int matches, long probeValue, JoinSink sink) {
      if (matches == 0) {
        sink.probeOnly(probeValue);
      }
    }
  },
  SEMI(true) {
    @Override
    public void finishProbeRow(int matches, long probeValue, JoinSink sink) {
      if (matches > 0) {
        sink.probeOnly(probeValue);
      }
    }
  },
  ANTI(true) {
    @Override
    public void finishProbeRow(int matches, long probeValue, JoinSink sink) {
      if (matches == 0) {
        sink.probeOnly(probeValue);
      }
    }
  };

  private final boolean existenceOnly;

  JoinType(boolean existenceOnly) {
    this.existenceOnly = existenceOnly;
  }

  /** True when only whether a probe row matches counts, so a probe may stop at its first match. */
  public boolean existenceOnly() {
    return existenceOnly;
  }

  /** Emits what this join type produces for a probe row after its {@code matches} pairs were handled. */
  public abstract void finishProbeRow(int matches, long probeValue, JoinSink sink);
}
