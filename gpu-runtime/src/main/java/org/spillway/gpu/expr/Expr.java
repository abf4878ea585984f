package org.spillway.gpu.expr;

import org.spillway.gpu.vector.ExprType;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A typed expression of an expression program, built once per query (from Calcite's RexNode by the adapter)
 * and evaluated over whole vectors by {@link VectorEvaluator}. Operands of arithmetic and comparisons
 * already have the types the operation needs: the builder inserts {@link Cast}s.
 */
public sealed interface Expr {
  /** The type of the value. */
  ExprType type();

  /** Reference to a column of the input. */
  record Column(int index, ExprType type) implements Expr {
    @Override public String toString() {
      return "$" + index;
    }
  }

  /** A constant: a Long for long-lane types, a Double, a String for TEXT, or null for NULL. */
  record Literal(Object value, ExprType type) implements Expr {
    @Override public String toString() {
      return String.valueOf(value);
    }
  }

  /** Comparison operators. */
  enum CompareOp {
    EQ, NE, LT, LE, GT, GE;

    /** The operator with its operands swapped: {@code 5 < x} is {@code x > 5}. */
    public CompareOp swapped() {
      return switch (this) {
        case LT -> GT;
        case LE -> GE;
        case GT -> LT;
        case GE -> LE;
        default -> this;
      };
    }
  }

  /** Comparison of two operands of the same lane (and, for decimals, the same scale). */
  record Compare(CompareOp op, Expr left, Expr right) implements Expr {
    public Compare {
      if (left.type().isLong() != right.type().isLong() || left.type().scale() != right.type().scale()
          || (left.type().isObject() || right.type().isObject()) && left.type().kind() != right.type().kind()) {
        throw new IllegalArgumentException("cannot compare " + left.type() + " with " + right.type());
      }
    }

    @Override public ExprType type() {
      return ExprType.BOOLEAN;
    }

    @Override public String toString() {
      return op + "(" + left + ", " + right + ")";
    }
  }

  /**
   * Whether a long-lane operand lies in one of the inclusive ranges {@code [lows[i], highs[i]]} (BETWEEN,
   * IN, Calcite's SEARCH with a Sarg, dictionary-string comparisons and LIKE prefixes as code ranges).
   * A NULL operand gives {@code nullAs}: null for UNKNOWN, else that Boolean.
   */
  record InRanges(Expr operand, long[] lows, long[] highs, Boolean nullAs) implements Expr {
    public InRanges {
      if (!operand.type().isLong() || lows.length != highs.length) {
        throw new IllegalArgumentException("ranges need a long-lane operand and as many lows as highs");
      }
    }

    @Override public ExprType type() {
      return ExprType.BOOLEAN;
    }

    @Override public String toString() {
      StringBuilder sb = new StringBuilder("IN_RANGES(").append(operand);
      for (int i = 0; i < lows.length; i++) {
        sb.append(", [").append(lows[i]).append("..").append(highs[i]).append(']');
      }
      return sb.append(nullAs == null ? "" : ", null as " + nullAs).append(')').toString();
    }
  }

  /** AND or OR of boolean operands, with SQL's three-valued logic. */
  record Logical(boolean and, List<Expr> operands) implements Expr {
    public Logical {
      operands = List.copyOf(operands);
      operands.forEach(o -> requireBoolean(o, and ? "AND" : "OR"));
    }

    @Override public ExprType type() {
      return ExprType.BOOLEAN;
    }

    @Override public String toString() {
      return (and ? "AND" : "OR") + operands;
    }
  }

  /** NOT of a boolean operand (NULL stays NULL). */
  record Not(Expr operand) implements Expr {
    public Not {
      requireBoolean(operand, "NOT");
    }

    @Override public ExprType type() {
      return ExprType.BOOLEAN;
    }
  }

  /** IS NULL, or IS NOT NULL when {@code negated}; never NULL itself. */
  record IsNull(Expr operand, boolean negated) implements Expr {
    @Override public ExprType type() {
      return ExprType.BOOLEAN;
    }
  }

  /** Arithmetic operators. */
  enum ArithOp { PLUS, MINUS, TIMES, DIVIDE }

  /**
   * Arithmetic on two operands of the result's lane. Exact kinds fail on overflow (and on division by zero);
   * for DECIMAL the operands of PLUS/MINUS carry the result's scale and those of TIMES add up to it.
   */
  record Arith(ArithOp op, Expr left, Expr right, ExprType type) implements Expr {
    public Arith {
      boolean ok = left.type().isLong() == type.isLong() && right.type().isLong() == type.isLong()
          && (type.isExactNumeric() || type.kind() == ExprType.Kind.FLOAT64);
      if (ok && type.kind() == ExprType.Kind.DECIMAL) {
        int s = type.scale();
        ok = switch (op) {
          case PLUS, MINUS -> left.type().scale() == s && right.type().scale() == s;
          case TIMES -> left.type().scale() + right.type().scale() == s;
          case DIVIDE -> false;  // a decimal quotient is a BigDecimalArith
        };
      }
      if (!ok) {
        throw new IllegalArgumentException("cannot compute " + op + " of " + left.type() + " and "
            + right.type() + " as " + type);
      }
    }

    @Override public String toString() {
      return op + "(" + left + ", " + right + ")";
    }
  }

  /**
   * x op y as Calcite's generated code computes it on {@link java.math.BigDecimal}s when the SQL result is a
   * DECIMAL that Spillway's scaled int64 cannot hold: a quotient ({@code x.divide(y, MathContext.DECIMAL64)}:
   * 16 significant digits, half-even, whatever the scale of its SQL type), or exact +, - and * where an
   * operand is such a value. Operands are exact numbers of either lane; the result is {@link ExprType#BIG_DECIMAL}.
   * Division by zero fails as BigDecimal's does.
   */
  record BigDecimalArith(ArithOp op, Expr left, Expr right) implements Expr {
    public BigDecimalArith {
      if (!isBigDecimalOperand(left.type()) || !isBigDecimalOperand(right.type())) {
        throw new IllegalArgumentException("cannot compute " + op + " of " + left.type() + " and " + right.type()
            + " as BIG_DECIMAL");
      }
    }

    /** Whether values of the type convert exactly to a BigDecimal operand. */
    public static boolean isBigDecimalOperand(ExprType type) {
      return type.isExactNumeric() || type.kind() == ExprType.Kind.BIG_DECIMAL;
    }

    @Override public ExprType type() {
      return ExprType.BIG_DECIMAL;
    }

    @Override public String toString() {
      return op + "(" + left + ", " + right + ")";
    }
  }

  /**
   * CAST between numeric kinds as Calcite's generated code does it: widening within the long lane; a decimal
   * (or integer, or BIG_DECIMAL) to a decimal of any scale, rounding toward zero where the scale shrinks
   * (RoundingMode.DOWN); any exact kind to FLOAT64 and to BIG_DECIMAL; BIG_DECIMAL to FLOAT64. A DECIMAL target
   * with {@code precision} above 0 fails when the result has more digits, as Calcite's DECIMAL(p, s) check does;
   * range checks fail loudly.
   */
  record Cast(Expr operand, ExprType type, int precision) implements Expr {
    public Cast {
      if (!isSupported(operand.type(), type)) {
        throw new IllegalArgumentException("cannot cast " + operand.type() + " to " + type);
      }
      if (precision < 0 || precision > 0 && type.kind() != ExprType.Kind.DECIMAL) {
        throw new IllegalArgumentException("precision " + precision + " is invalid for a cast to " + type);
      }
    }

    /** A cast without a precision check. */
    public Cast(Expr operand, ExprType type) {
      this(operand, type, 0);
    }

    /** Whether a cast between the two types is supported. */
    public static boolean isSupported(ExprType from, ExprType to) {
      if (from.equals(to)) {
        return true;
      }
      boolean exactFrom = from.isExactNumeric();
      return switch (to.kind()) {
        case INT32, INT64 -> from.kind() == ExprType.Kind.INT32 || from.kind() == ExprType.Kind.INT64;
        case DECIMAL -> exactFrom || from.kind() == ExprType.Kind.BIG_DECIMAL;
        case FLOAT64 -> exactFrom || from.kind() == ExprType.Kind.BIG_DECIMAL;
        case BIG_DECIMAL -> exactFrom;
        default -> false;
      };
    }

    /** Whether the value is kept as it is: no rounding, no precision check, no change of lane. */
    public boolean preservesValue() {
      ExprType from = operand.type();
      return precision == 0 && (from.equals(type)
          || from.kind() == ExprType.Kind.INT32 && type.kind() == ExprType.Kind.INT64);
    }

    @Override public String toString() {
      return "CAST(" + operand + " AS " + type + (precision > 0 ? " PRECISION " + precision : "") + ")";
    }
  }

  /** CASE WHEN conditions[i] THEN values[i] ... ELSE otherwise END; the first true condition wins. */
  record Case(List<Expr> conditions, List<Expr> values, Expr otherwise) implements Expr {
    public Case {
      conditions = List.copyOf(conditions);
      values = List.copyOf(values);
      conditions.forEach(c -> requireBoolean(c, "CASE WHEN"));
      if (conditions.size() != values.size() || conditions.isEmpty()) {
        throw new IllegalArgumentException("CASE needs as many WHENs as THENs, at least one");
      }
      for (Expr v : values) {
        if (!v.type().equals(otherwise.type())) {
          throw new IllegalArgumentException("CASE branch of type " + v.type() + " differs from ELSE " + otherwise.type());
        }
      }
    }

    @Override public ExprType type() {
      return otherwise.type();
    }
  }

  /**
   * {@code operand LIKE pattern} over plain text, matched as Calcite matches it ({@link SqlLikePatterns}); NULL
   * text gives NULL. Dictionary-encoded text needs none: its matching codes become {@link InRanges}. The pattern
   * is compiled twice: {@code regex} for text held as Java strings, {@code bytes} for text read from Arrow's UTF-8
   * ({@link TextSelection}; null for a pattern with a lone surrogate, which only the regex matches).
   */
  record Like(Expr operand, String pattern, String escape, Pattern regex, Utf8LikeMatcher bytes) implements Expr {
    public Like {
      if (operand.type().kind() != ExprType.Kind.TEXT) {
        throw new IllegalArgumentException("LIKE needs a TEXT operand, got " + operand.type());
      }
    }

    /** The LIKE of a pattern and an escape character (null for none) whose regular expression is compiled. */
    public Like(Expr operand, String pattern, String escape, Pattern regex) {
      this(operand, pattern, escape, regex, Utf8LikeMatcher.compile(pattern, escape));
    }

    /** The LIKE of a pattern and an escape character (null for none). */
    public static Like of(Expr operand, String pattern, String escape) {
      return new Like(operand, pattern, escape, SqlLikePatterns.compile(pattern, escape));
    }

    @Override public ExprType type() {
      return ExprType.BOOLEAN;
    }

    @Override public String toString() {
      return "LIKE(" + operand + ", '" + pattern + "'" + (escape == null ? "" : ", '" + escape + "'") + ")";
    }
  }

  /**
   * SUBSTRING(text FROM start FOR length) of plain text, 1-based, by UTF-16 units as Calcite's
   * SqlFunctions.substring: positions outside the string give the empty string; NULL gives NULL.
   */
  record Substring(Expr operand, int start, int length) implements Expr {
    public Substring {
      if (operand.type().kind() != ExprType.Kind.TEXT || length < 0) {
        throw new IllegalArgumentException("SUBSTRING needs a TEXT operand and a length of at least 0, got "
            + operand.type() + " and " + length);
      }
    }

    @Override public ExprType type() {
      return ExprType.TEXT;
    }

    /** The substring of one value. */
    public String of(String s) {
      long end = (long) start + length;
      if (start > s.length() || end < 1) {
        return "";
      }
      return s.substring(Math.max(start - 1, 0), (int) Math.min(end - 1, s.length()));
    }
  }

  /**
   * The strings of a dictionary-encoded text value (codes into the sorted {@code dictionary}), as plain text for the
   * functions that work on strings (SUBSTRING); NULL stays NULL. The dictionary is the table's, shared, not copied.
   */
  record Decode(Expr operand, List<String> dictionary) implements Expr {
    public Decode {
      if (operand.type().kind() != ExprType.Kind.STRING) {
        throw new IllegalArgumentException("DECODE needs dictionary codes (STRING), got " + operand.type());
      }
      Objects.requireNonNull(dictionary, "dictionary");
    }

    @Override public ExprType type() {
      return ExprType.TEXT;
    }

    @Override public String toString() {
      return "DECODE(" + operand + ")";
    }
  }

  /** EXTRACT(YEAR FROM date), as INT64 like Calcite's BIGINT result. */
  record ExtractYear(Expr operand) implements Expr {
    public ExtractYear {
      if (operand.type().kind() != ExprType.Kind.DATE) {
        throw new IllegalArgumentException("EXTRACT(YEAR) needs a DATE, got " + operand.type());
      }
    }

    @Override public ExprType type() {
      return ExprType.INT64;
    }
  }

  private static void requireBoolean(Expr e, String where) {
    Objects.requireNonNull(e, where);
    if (e.type().kind() != ExprType.Kind.BOOLEAN) {
      throw new IllegalArgumentException(where + " needs a BOOLEAN operand, got " + e.type() + ": " + e);
    }
  }
}
