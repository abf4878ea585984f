package org.spillway.gpu.ops;

import org.spillway.gpu.transfer.ColumnType;

/**
 * The sum of a column: integer columns sum into a wrapping 64-bit {@code integerSum} (like Java long
 * arithmetic), FLOAT64 columns into {@code floatSum}.
 */
public record SumResult(ColumnType type, long rowCount, long integerSum, double floatSum) {
  /** The sum as a number of the column's kind. */
  public Number value() {
    return type == ColumnType.FLOAT64 ? (Number) floatSum : (Number) integerSum;
  }
}
