package org.spillway.adapter;

import org.apache.calcite.avatica.util.TimeUnitRange;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.type.SqlTypeFamily;
import org.apache.calcite.util.DateString;
import org.apache.calcite.util.NlsString;
import org.spillway.gpu.expr.Expr;
import org.spillway.gpu.vector.ExprType;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;

/**
 * Translates Calcite row expressions into Spillway expression programs, once per query. Comparisons with
 * dictionary-encoded text become code ranges (the dictionary is sorted); what has no exact columnar
 * equivalent throws {@link SpillwayUnsupportedException} with the reason.
 */
final class SpillwayRexTranslator {
  private final List<SpillwayField> inputs;
  /** When false, dictionaries are not read (planning only asks whether a translation exists). */
  private final boolean resolveDictionaries;

  private SpillwayRexTranslator(List<SpillwayField> inputs, boolean resolveDictionaries) {
    this.inputs = inputs;
    this.resolveDictionaries = resolveDictionaries;
  }

  /** The program of an expression over input fields, reading the dictionaries it compares with. */
  static Expr translate(RexNode rex, List<SpillwayField> inputs) throws SpillwayUnsupportedException {
    return new SpillwayRexTranslator(inputs, true).expr(rex);
  }

  /** Checks that an expression translates, without loading any table data. */
  static void check(RexNode rex, List<SpillwayField> inputs) throws SpillwayUnsupportedException {
    new SpillwayRexTranslator(inputs, false).expr(rex);
  }

  /**
   * The type of an expression's translation (a decimal quotient is {@link ExprType#BIG_DECIMAL}, not the scale
   * of its SQL type), without loading any table data; the field of its SQL type when it has no translation.
   */
  static SpillwayField fieldOf(RexNode rex, List<SpillwayField> inputs) {
    try {
      return SpillwayField.of(new SpillwayRexTranslator(inputs, false).expr(rex).type());
    } catch (SpillwayUnsupportedException e) {
      return SpillwayFields.ofType(rex.getType());
    }
  }

  /** Translates an operand of a larger construct (used by {@link SpillwaySargs}). */
  Expr translateOperand(RexNode rex) throws SpillwayUnsupportedException {
    return expr(rex);
  }

  private Expr expr(RexNode rex) throws SpillwayUnsupportedException {
    if (rex instanceof RexInputRef ref) {
      SpillwayField field = inputs.get(ref.getIndex());
      if (!field.isSupported()) {
        throw new SpillwayUnsupportedException("column $" + ref.getIndex() + ": " + field.unsupported());
      }
      return new Expr.Column(ref.getIndex(), field.type());
    }
    if (rex instanceof RexLiteral literal) {
      return literal(literal);
    }
    if (!(rex instanceof RexCall call)) {
      throw new SpillwayUnsupportedException(rex.getKind() + " " + rex);
    }
    List<RexNode> ops = call.getOperands();
    switch (SpillwayCheckedArithmetic.plainKind(call.getKind())) {
      case EQUALS, NOT_EQUALS, LESS_THAN, LESS_THAN_OR_EQUAL, GREATER_THAN, GREATER_THAN_OR_EQUAL:
        return comparison(call);
      case SEARCH:
        return SpillwaySargs.search(this, ops.get(0), (RexLiteral) ops.get(1));
      case AND, OR:
        List<Expr> operands = new ArrayList<>();
        for (RexNode op : ops) {
          operands.add(expr(op));
        }
        return new Expr.Logical(call.getKind() == SqlKind.AND, operands);
      case NOT:
        return new Expr.Not(expr(ops.get(0)));
      case IS_NULL, IS_NOT_NULL:
        return new Expr.IsNull(expr(ops.get(0)), call.getKind() == SqlKind.IS_NOT_NULL);
      case IS_TRUE, IS_NOT_TRUE, IS_FALSE, IS_NOT_FALSE: {
        // x IS TRUE = x in [1,1] with NULL as FALSE; IS NOT TRUE = x in [0,0] with NULL as TRUE; and so on.
        boolean negated = call.getKind() == SqlKind.IS_NOT_TRUE || call.getKind() == SqlKind.IS_NOT_FALSE;
        boolean testsTrue = call.getKind() == SqlKind.IS_TRUE || call.getKind() == SqlKind.IS_NOT_FALSE;
        long v = testsTrue ? 1 : 0;
        return new Expr.InRanges(expr(ops.get(0)), new long[] {v}, new long[] {v}, negated);
      }
      case PLUS, MINUS, TIMES, DIVIDE:
        return arithmetic(call);
      case MINUS_PREFIX: {
        Expr x = expr(ops.get(0));
        if (x.type().kind() == ExprType.Kind.BIG_DECIMAL) {  // 0 - x: BigDecimal.negate's value and scale
          return new Expr.BigDecimalArith(Expr.ArithOp.MINUS, new Expr.Literal(BigDecimal.ZERO, x.type()), x);
        }
        return arith(Expr.ArithOp.MINUS, new Expr.Literal(0L, x.type()), x, x.type(), call);
      }
      case CAST:
        return cast(call);
      case CASE:
        return caseWhen(call);
      case EXTRACT:
        return extract(call);
      case LIKE:
        return SpillwayTextTranslator.like(this, call);
      default:
        if (call.getOperator() == SpillwayDateRange.CHECKED_DATE) {
          throw new SpillwayUnsupportedException("date arithmetic (range-checked in Calcite's code) in " + call);
        }
        if (call.getOperator() == SqlStdOperatorTable.SUBSTRING) {
          return SpillwayTextTranslator.substring(this, call);
        }
        throw new SpillwayUnsupportedException("function " + call.getOperator().getName() + " in " + call);
    }
  }

  private Expr literal(RexLiteral literal) throws SpillwayUnsupportedException {
    ExprType type = resultType(literal);
    if (literal.isNull()) {
      return new Expr.Literal(null, type);
    }
    return new Expr.Literal(switch (type.kind()) {
      case INT32, INT64, DECIMAL -> unscaled(literal.getValueAs(BigDecimal.class), type.scale(), literal);
      case FLOAT64 -> literal.getValueAs(Double.class);
      case DATE -> (long) literal.getValueAs(DateString.class).getDaysSinceEpoch();
      case BOOLEAN -> Boolean.TRUE.equals(literal.getValueAs(Boolean.class)) ? 1L : 0L;
      default -> throw new SpillwayUnsupportedException("literal " + literal + " outside a text comparison");
    }, type);
  }

  static long unscaled(BigDecimal value, int scale, RexNode where) throws SpillwayUnsupportedException {
    try {
      return value.setScale(scale).unscaledValue().longValueExact();
    } catch (ArithmeticException e) {
      throw new SpillwayUnsupportedException("literal " + value + " is not exact at scale " + scale + " in " + where);
    }
  }

  ExprType resultType(RexNode rex) throws SpillwayUnsupportedException {
    SpillwayField field = SpillwayFields.ofType(rex.getType());
    if (!field.isSupported()) {
      throw new SpillwayUnsupportedException(field.unsupported() + " in " + rex);
    }
    return field.type();
  }

  /** The input field a (possibly cast) dictionary-encoded column reference reads, or null. */
  SpillwayField dictionaryColumn(RexNode rex) {
    if (rex instanceof RexInputRef ref && inputs.get(ref.getIndex()).isSupported()
        && inputs.get(ref.getIndex()).type().kind() == ExprType.Kind.STRING) {
      return inputs.get(ref.getIndex());
    }
    return null;
  }

  /** The sorted dictionary of a field, or a stand-in while only checking translatability. */
  List<String> dictionary(SpillwayField field) {
    return resolveDictionaries ? field.dictionary().get() : List.of();
  }

  /** The text value of a character literal, possibly under a CAST, or null if it is not one. */
  static String textLiteral(RexNode rex) {
    if (rex.getKind() == SqlKind.CAST && ((RexCall) rex).getOperands().get(0) instanceof RexLiteral inner) {
      rex = inner;
    }
    if (rex instanceof RexLiteral literal && literal.getTypeName().getFamily() == SqlTypeFamily.CHARACTER
        && !literal.isNull()) {
      return literal.getValueAs(NlsString.class).getValue();
    }
    return null;
  }

  private Expr comparison(RexCall call) throws SpillwayUnsupportedException {
    RexNode left = call.getOperands().get(0);
    RexNode right = call.getOperands().get(1);
    SqlKind kind = call.getKind();
    if (dictionaryColumn(right) != null && textLiteral(left) != null) {
      RexNode t = left;
      left = right;
      right = t;
      kind = kind.reverse();
    }
    SpillwayField dictionaryField = dictionaryColumn(left);
    String text = textLiteral(right);
    if (dictionaryField != null && text != null) {
      return SpillwaySargs.textComparison(expr(left), kind, text, dictionary(dictionaryField));
    }
    if (text == null && textLiteral(left) != null) {
      RexNode t = left;
      left = right;
      right = t;
      kind = kind.reverse();
      text = textLiteral(right);
    }
    if (text != null) {
      // Plain text compares as Java strings do in Calcite's generated code (String.compareTo).
      Expr l = expr(left);
      if (l.type().kind() != ExprType.Kind.TEXT) {
        throw new SpillwayUnsupportedException("comparison of " + l.type() + " with a text literal in " + call);
      }
      return new Expr.Compare(compareOp(kind), l, new Expr.Literal(text, ExprType.TEXT));
    }
    Expr l = expr(left);
    Expr r = expr(right);
    ExprType common = commonType(l.type(), r.type(), call);
    return new Expr.Compare(compareOp(kind), castTo(l, common, call), castTo(r, common, call));
  }

  private static Expr.CompareOp compareOp(SqlKind kind) {
    return switch (kind) {
      case EQUALS -> Expr.CompareOp.EQ;
      case NOT_EQUALS -> Expr.CompareOp.NE;
      case LESS_THAN -> Expr.CompareOp.LT;
      case LESS_THAN_OR_EQUAL -> Expr.CompareOp.LE;
      case GREATER_THAN -> Expr.CompareOp.GT;
      default -> Expr.CompareOp.GE;
    };
  }

  private static ExprType commonType(ExprType a, ExprType b, RexNode where) throws SpillwayUnsupportedException {
    if (a.equals(b) && a.kind() != ExprType.Kind.TEXT && a.kind() != ExprType.Kind.STRING) {
      return a;
    }
    boolean bigA = a.kind() == ExprType.Kind.BIG_DECIMAL;
    boolean bigB = b.kind() == ExprType.Kind.BIG_DECIMAL;
    if ((bigA || bigB) && Expr.BigDecimalArith.isBigDecimalOperand(a) && Expr.BigDecimalArith.isBigDecimalOperand(b)) {
      return ExprType.BIG_DECIMAL;  // compared as SqlFunctions compares BigDecimals: compareTo
    }
    if (a.isExactNumeric() && b.isExactNumeric()) {
      int scale = Math.max(a.scale(), b.scale());
      return scale == 0 ? ExprType.INT64 : ExprType.decimal(scale);
    }
    if ((a.isExactNumeric() || a.kind() == ExprType.Kind.FLOAT64)
        && (b.isExactNumeric() || b.kind() == ExprType.Kind.FLOAT64)) {
      return ExprType.FLOAT64;
    }
    throw new SpillwayUnsupportedException("comparison of " + a + " with " + b + " in " + where);
  }

  private Expr arithmetic(RexCall call) throws SpillwayUnsupportedException {
    Expr l = expr(call.getOperands().get(0));
    Expr r = expr(call.getOperands().get(1));
    Expr.ArithOp op = switch (SpillwayCheckedArithmetic.plainKind(call.getKind())) {
      case PLUS -> Expr.ArithOp.PLUS;
      case MINUS -> Expr.ArithOp.MINUS;
      case TIMES -> Expr.ArithOp.TIMES;
      default -> Expr.ArithOp.DIVIDE;
    };
    ExprType type = resultType(call);
    boolean quotient = op == Expr.ArithOp.DIVIDE && type.kind() == ExprType.Kind.DECIMAL;
    if (quotient || l.type().kind() == ExprType.Kind.BIG_DECIMAL || r.type().kind() == ExprType.Kind.BIG_DECIMAL) {
      // Calcite's generated code computes these on BigDecimals, not rounded to the scale of the SQL type
      if (type.kind() != ExprType.Kind.DECIMAL || !Expr.BigDecimalArith.isBigDecimalOperand(l.type())
          || !Expr.BigDecimalArith.isBigDecimalOperand(r.type())) {
        throw new SpillwayUnsupportedException("arithmetic on " + l.type() + " and " + r.type() + " as " + type
            + " in " + call);
      }
      return new Expr.BigDecimalArith(op, bigDecimalOperand(call.getOperands().get(0), l),
          bigDecimalOperand(call.getOperands().get(1), r));
    }
    return arith(op, l, r, type, call);
  }

  /**
   * A decimal literal operand of BigDecimal arithmetic keeps its own scale, as in Calcite's generated code
   * ({@code new BigDecimal("7.0")}): the scale of an exact quotient follows the operands' scales.
   */
  private static Expr bigDecimalOperand(RexNode rex, Expr translated) {
    if (rex instanceof RexLiteral literal && !literal.isNull()
        && translated.type().kind() == ExprType.Kind.DECIMAL) {
      return new Expr.Literal(literal.getValueAs(BigDecimal.class), ExprType.BIG_DECIMAL);
    }
    return translated;
  }

  private static Expr arith(Expr.ArithOp op, Expr l, Expr r, ExprType type, RexNode where)
      throws SpillwayUnsupportedException {
    if (type.kind() == ExprType.Kind.FLOAT64) {
      return new Expr.Arith(op, castTo(l, type, where), castTo(r, type, where), type);
    }
    if (!l.type().isExactNumeric() || !r.type().isExactNumeric()) {
      throw new SpillwayUnsupportedException("arithmetic on " + l.type() + " and " + r.type() + " in " + where);
    }
    if (type.kind() != ExprType.Kind.DECIMAL) {
      if (l.type().kind() == ExprType.Kind.DECIMAL || r.type().kind() == ExprType.Kind.DECIMAL) {
        throw new SpillwayUnsupportedException("decimal arithmetic with an integer result in " + where);
      }
      return new Expr.Arith(op, l, r, type);
    }
    switch (op) {
      case PLUS, MINUS -> {
        return new Expr.Arith(op, castTo(l, type, where), castTo(r, type, where), type);
      }
      case TIMES -> {
        if (l.type().scale() + r.type().scale() != type.scale()) {
          throw new SpillwayUnsupportedException("decimal product of scales " + l.type().scale() + " and "
              + r.type().scale() + " typed with scale " + type.scale() + " (rounded by Calcite) in " + where);
        }
        return new Expr.Arith(op, l, r, type);
      }
      default -> throw new IllegalStateException("a decimal quotient is a BigDecimalArith: " + where);
    }
  }

  /** An operand aligned to the type its operation needs: widening only, never rounding. */
  static Expr castTo(Expr e, ExprType target, RexNode where) throws SpillwayUnsupportedException {
    if (e.type().equals(target)) {
      return e;
    }
    if (e instanceof Expr.Literal literal && literal.value() == null) {
      return new Expr.Literal(null, target);
    }
    boolean rounds = target.kind() == ExprType.Kind.DECIMAL
        && (e.type().scale() > target.scale() || e.type().kind() == ExprType.Kind.BIG_DECIMAL);
    if (rounds || !Expr.Cast.isSupported(e.type(), target)) {
      throw new SpillwayUnsupportedException("cast of " + e.type() + " to " + target + " in " + where);
    }
    return new Expr.Cast(e, target);
  }

  /**
   * An explicit CAST: to DECIMAL(p, s) it rounds toward zero and checks the precision p where the operand
   * may have more digits (Calcite's Primitive.checkOverflow).
   */
  private Expr cast(RexCall call) throws SpillwayUnsupportedException {
    RexNode operand = call.getOperands().get(0);
    Expr e = expr(operand);
    ExprType target = resultType(call);
    if (target.kind() != ExprType.Kind.DECIMAL || e instanceof Expr.Literal literal && literal.value() == null) {
      return castTo(e, target, call);
    }
    if (!Expr.Cast.isSupported(e.type(), target)) {
      throw new SpillwayUnsupportedException("cast of " + e.type() + " to " + target + " in " + call);
    }
    int precision = call.getType().getPrecision();
    boolean mayOverflow = e.type().kind() == ExprType.Kind.BIG_DECIMAL
        || integerDigits(operand.getType()) + target.scale() > precision;
    if (!mayOverflow && e.type().equals(target)) {
      return e;
    }
    return new Expr.Cast(e, target, mayOverflow ? precision : 0);
  }

  /** The most digits before the point that values of an exact SQL type have. */
  private static int integerDigits(RelDataType type) {
    return switch (type.getSqlTypeName()) {
      case TINYINT -> 3;
      case SMALLINT -> 5;
      case INTEGER -> 10;
      case DECIMAL -> type.getPrecision() - type.getScale();
      default -> 19;
    };
  }

  private Expr caseWhen(RexCall call) throws SpillwayUnsupportedException {
    ExprType type = resultType(call);
    List<RexNode> ops = call.getOperands();
    List<Expr> conditions = new ArrayList<>();
    List<Expr> values = new ArrayList<>();
    for (int i = 0; i + 1 < ops.size(); i += 2) {
      conditions.add(expr(ops.get(i)));
      values.add(expr(ops.get(i + 1)));
    }
    Expr otherwise = expr(ops.get(ops.size() - 1));
    // A branch that is a decimal quotient keeps its BigDecimal in Calcite's generated code: so do they all.
    if (otherwise.type().kind() == ExprType.Kind.BIG_DECIMAL
        || values.stream().anyMatch(v -> v.type().kind() == ExprType.Kind.BIG_DECIMAL)) {
      type = ExprType.BIG_DECIMAL;
    }
    for (int i = 0; i < values.size(); i++) {
      values.set(i, castTo(values.get(i), type, call));
    }
    return new Expr.Case(conditions, values, castTo(otherwise, type, call));
  }

  private Expr extract(RexCall call) throws SpillwayUnsupportedException {
    Object unit = ((RexLiteral) call.getOperands().get(0)).getValue();
    Expr date = expr(call.getOperands().get(1));
    if (unit != TimeUnitRange.YEAR || date.type().kind() != ExprType.Kind.DATE) {
      throw new SpillwayUnsupportedException("EXTRACT(" + unit + ") from " + date.type() + " in " + call);
    }
    return castTo(new Expr.ExtractYear(date), resultType(call), call);
  }

}
