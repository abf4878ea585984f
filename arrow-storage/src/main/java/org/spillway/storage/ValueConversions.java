package org.spillway.storage;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.LocalDate;

/** Conversions between physical values and the Java values the storage API hands out. */
final class ValueConversions {
  private ValueConversions() {
  }

  /** The Java value of a physical 64-bit value of an integer-backed kind. */
  static Object fromLong(ColumnType type, long v) {
    return switch (type.kind()) {
      case INTEGER, DATE -> (int) v;
      case BIGINT -> v;
      case DECIMAL -> BigDecimal.valueOf(v, type.scale());
      default -> throw new IllegalArgumentException(type + " is not integer-backed");
    };
  }

  /**
   * The unscaled value of a decimal in a DECIMAL(p,s) column; ArithmeticException if it needs more than s
   * fractional digits or more than p digits in all.
   */
  static long unscaledExact(BigDecimal value, ColumnType type) {
    BigDecimal scaled = value.setScale(type.scale(), RoundingMode.UNNECESSARY);
    if (scaled.signum() != 0 && scaled.precision() > type.precision()) {
      throw new ArithmeticException(value.toPlainString() + " has more than " + type.precision() + " digits");
    }
    return scaled.unscaledValue().longValueExact();
  }

  /** Length in characters of a string that is too long for a CHAR/VARCHAR type, or -1 if it fits. */
  static int excessLength(ColumnType type, String value) {
    if (value.length() <= type.length()) {
      return -1;
    }
    int length = value.codePointCount(0, value.length());
    return length > type.length() ? length : -1;
  }

  /** A value as text for the JSON sidecar: exact for decimals, ISO for dates. */
  static Object toJson(ColumnType type, Object value) {
    if (value == null) {
      return null;
    }
    return switch (type.kind()) {
      case DECIMAL -> ((BigDecimal) value).toPlainString();
      case DATE -> LocalDate.ofEpochDay((Integer) value).toString();
      default -> value;
    };
  }

  /** Inverse of {@link #toJson}, from the JSON text or number. */
  static Object fromJson(ColumnType type, String text) {
    if (text == null) {
      return null;
    }
    return switch (type.kind()) {
      case INTEGER -> Integer.valueOf(text);
      case BIGINT -> Long.valueOf(text);
      case DOUBLE -> Double.valueOf(text);
      case DECIMAL -> new BigDecimal(text).setScale(type.scale());
      case DATE -> (int) LocalDate.parse(text).toEpochDay();
      case CHAR, VARCHAR -> text;
    };
  }
}
