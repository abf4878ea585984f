package org.spillway.gpu.join;

/**
 * The result of one join: either materialized (build row, probe row) pairs or the fused aggregate
 * (output row count and sums of build and probe payloads), plus the algorithm variant that produced it.
 *
 * <p>SEMI and ANTI output probe rows only: their build row is -1 and add nothing to the build payload sum;
 * so do the unmatched probe rows of LEFT_OUTER. Sums wrap around on overflow like Java longs.
 */
public final class JoinResult {
  private final JoinOutput output;
  private final String algorithm;
  private final long rowCount;
  private final long buildPayloadSum;
  private final long probePayloadSum;
  private final RowIdColumn buildRows;
  private final RowIdColumn probeRows;

  private JoinResult(JoinOutput output, String algorithm, long rowCount, long buildPayloadSum,
      long probePayloadSum, RowIdColumn buildRows, RowIdColumn probeRows) {
    this.output = output;
    this.algorithm = algorithm;
    this.rowCount = rowCount;
    this.buildPayloadSum = buildPayloadSum;
    this.probePayloadSum = probePayloadSum;
    this.buildRows = buildRows;
    this.probeRows = probeRows;
  }

  public static JoinResult materialized(String algorithm, RowIdColumn buildRows, RowIdColumn probeRows) {
    return new JoinResult(JoinOutput.MATERIALIZED, algorithm, probeRows.size(), 0, 0, buildRows, probeRows);
  }

  public static JoinResult aggregated(String algorithm, long rowCount, long buildPayloadSum, long probePayloadSum) {
    return new JoinResult(JoinOutput.AGGREGATED, algorithm, rowCount, buildPayloadSum, probePayloadSum, null,
        null);
  }

  public JoinOutput output() {
    return output;
  }

  /** The variant that ran, e.g. {@code nopa/perfect-hash} or {@code radix/bits=12+0}. */
  public String algorithm() {
    return algorithm;
  }

  /** Number of output rows, in either output kind. */
  public long rowCount() {
    return rowCount;
  }

  public long buildPayloadSum() {
    requireOutput(JoinOutput.AGGREGATED);
    return buildPayloadSum;
  }

  public long probePayloadSum() {
    requireOutput(JoinOutput.AGGREGATED);
    return probePayloadSum;
  }

  /** Build row of each output row (-1 where the build side is NULL); parallel to {@link #probeRows()}. */
  public RowIdColumn buildRows() {
    requireOutput(JoinOutput.MATERIALIZED);
    return buildRows;
  }

  /** Probe row of each output row. */
  public RowIdColumn probeRows() {
    requireOutput(JoinOutput.MATERIALIZED);
    return probeRows;
  }

  private void requireOutput(JoinOutput wanted) {
    if (output != wanted) {
      throw new IllegalStateException("this join result is " + output + "; the value asked for exists only in "
          + wanted + " results");
    }
  }
}
