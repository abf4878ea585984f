package org.spillway.gpu.vector;

/**
 * Type of a value in an expression program: a kind plus, for DECIMAL, the scale of its scaled int64.
 *
 * <p>Every kind but FLOAT64, TEXT and BIG_DECIMAL lives in the long lane of a {@link ColumnVector}: INT32, DATE
 * (days since 1970-01-01) and STRING (codes into a sorted dictionary) are widened, BOOLEAN is 0 or 1. TEXT and
 * BIG_DECIMAL live in the object lane.
 */
public record ExprType(Kind kind, int scale) {
  /** The kinds of values an expression program computes with. */
  public enum Kind { INT32, INT64, DECIMAL, FLOAT64, DATE, BOOLEAN, STRING, TEXT, BIG_DECIMAL }

  public static final ExprType INT32 = new ExprType(Kind.INT32, 0);
  public static final ExprType INT64 = new ExprType(Kind.INT64, 0);
  public static final ExprType FLOAT64 = new ExprType(Kind.FLOAT64, 0);
  public static final ExprType DATE = new ExprType(Kind.DATE, 0);
  public static final ExprType BOOLEAN = new ExprType(Kind.BOOLEAN, 0);
  /** Dictionary codes of a text column whose dictionary is sorted, so codes order like the strings. */
  public static final ExprType STRING = new ExprType(Kind.STRING, 0);
  /** Plain text, carried through as Java strings; only passed along and tested for NULL. */
  public static final ExprType TEXT = new ExprType(Kind.TEXT, 0);
  /**
   * An exact number whose scale varies from row to row, as a {@link java.math.BigDecimal}: what Calcite's
   * generated code computes for a decimal quotient (rounded to 16 digits, not to the scale of its SQL type)
   * and for arithmetic on one; and the value of a wide SUM (see {@code AggCall.isWideSum} in the engine), which may need more
   * than 64 bits. Computed on the CPU backend only (a GPU aggregate hands its wide sums over as these).
   */
  public static final ExprType BIG_DECIMAL = new ExprType(Kind.BIG_DECIMAL, 0);

  public ExprType {
    if (scale < 0 || scale > 18 || (scale != 0 && kind != Kind.DECIMAL)) {
      throw new IllegalArgumentException("scale " + scale + " is invalid for " + kind);
    }
  }

  /** A scaled int64 decimal with the given number of fraction digits. */
  public static ExprType decimal(int scale) {
    return new ExprType(Kind.DECIMAL, scale);
  }

  /** Whether values live in the long lane. */
  public boolean isLong() {
    return kind != Kind.FLOAT64 && !isObject();
  }

  /** Whether values live in the object lane (Java strings or BigDecimals). */
  public boolean isObject() {
    return kind == Kind.TEXT || kind == Kind.BIG_DECIMAL;
  }

  /** Whether values are integers or exact decimals (arithmetic is allowed on them). */
  public boolean isExactNumeric() {
    return kind == Kind.INT32 || kind == Kind.INT64 || kind == Kind.DECIMAL;
  }

  /** Bytes of one value in the columnar layout (TEXT and BIG_DECIMAL: rough averages, for estimates only). */
  public int width() {
    return switch (kind) {
      case INT32, DATE, STRING -> 4;
      case INT64, DECIMAL, FLOAT64 -> 8;
      case BOOLEAN -> 1;
      case TEXT -> 24;
      case BIG_DECIMAL -> 16;
    };
  }

  @Override public String toString() {
    return kind == Kind.DECIMAL ? "DECIMAL(" + scale + ")" : kind.name();
  }
}
