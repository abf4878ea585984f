package org.spillway.gpu.join;

import org.spillway.gpu.transfer.ColumnType;
import org.spillway.gpu.transfer.HostColumn;

/**
 * One side of a GPU join: a key column, an optional payload column and an optional validity bitmap of the
 * keys, all in host memory that the GPU can read (pinned and mapped: Arrow buffers of a catalog loaded into
 * pinned memory, or {@code HostBuffer}s). Keys and payloads are INT32 or INT64. The validity bitmap has
 * Arrow's layout (bit {@code i % 8} of byte {@code i / 8} set means row {@code i} is valid; a cleared bit
 * is a NULL key, which never matches); address 0 means no NULLs. Nothing is owned or copied.
 */
public record HostJoinInput(HostColumn keys, HostColumn payloads, long validityAddress) {
  public HostJoinInput {
    if (keys == null) {
      throw new IllegalArgumentException("join input needs a key column, got null");
    }
    checkIntegral(keys, "key");
    if (payloads != null) {
      checkIntegral(payloads, "payload");
      if (payloads.rowCount() != keys.rowCount()) {
        throw new IllegalArgumentException("payload column " + payloads.name() + " has " + payloads.rowCount()
            + " rows but key column " + keys.name() + " has " + keys.rowCount());
      }
    }
  }

  /** Keys and payloads without NULLs. */
  public static HostJoinInput of(HostColumn keys, HostColumn payloads) {
    return new HostJoinInput(keys, payloads, 0);
  }

  /** Keys only (materialized or existence joins). */
  public static HostJoinInput keysOnly(HostColumn keys) {
    return new HostJoinInput(keys, null, 0);
  }

  public long rows() {
    return keys.rowCount();
  }

  public boolean hasPayloads() {
    return payloads != null;
  }

  public boolean hasNulls() {
    return validityAddress != 0;
  }

  /** Checks that this input can feed a join producing {@code output}; {@code side} names it in the error. */
  public void checkUsableFor(JoinOutput output, String side) {
    if (output == JoinOutput.AGGREGATED && payloads == null) {
      throw new IllegalArgumentException(side + " side has no payload column, which an AGGREGATED join sums");
    }
  }

  private static void checkIntegral(HostColumn column, String role) {
    if (column.type() != ColumnType.INT32 && column.type() != ColumnType.INT64) {
      throw new IllegalArgumentException(role + " column " + column.name() + " is " + column.type()
          + "; GPU joins read INT32 or INT64 columns");
    }
  }
}
