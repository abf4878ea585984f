package org.spillway.adapter;

import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.fun.SqlLikeOperator;
import org.apache.calcite.sql.type.SqlTypeName;
import org.spillway.gpu.expr.Expr;
import org.spillway.gpu.vector.ExprType;
import org.spillway.gpu.expr.SqlLikePatterns;

import java.util.List;
import java.util.regex.Pattern;

/** Translates Calcite's functions of text (LIKE, SUBSTRING) for {@link SpillwayRexTranslator}. */
final class SpillwayTextTranslator {
  private SpillwayTextTranslator() {}

  /**
   * SUBSTRING of text with literal positions (the CPU backend's; the GPU makes no strings): of dictionary-encoded text,
   * of its decoded strings.
   */
  static Expr substring(SpillwayRexTranslator translator, RexCall call) throws SpillwayUnsupportedException {
    Expr text = translator.translateOperand(call.getOperands().get(0));
    SpillwayField field = translator.dictionaryColumn(call.getOperands().get(0));
    if (field != null) {
      text = new Expr.Decode(text, translator.dictionary(field));
    }
    Integer start = intLiteral(call.getOperands().get(1));
    Integer length = call.getOperands().size() > 2 ? intLiteral(call.getOperands().get(2))
        : (Integer) Integer.MAX_VALUE;
    if (text.type().kind() != ExprType.Kind.TEXT || start == null || length == null || length < 0) {
      throw new SpillwayUnsupportedException("SUBSTRING needs text and literal positions, a length of at "
          + "least 0: " + call);
    }
    return new Expr.Substring(text, start, length);
  }

  private static Integer intLiteral(RexNode rex) {
    return rex instanceof RexLiteral literal && !literal.isNull()
        && literal.getType().getSqlTypeName() == SqlTypeName.INTEGER ? literal.getValueAs(Integer.class) : null;
  }

  /**
   * LIKE with a literal pattern (and escape): over dictionary-encoded text the codes of the matching strings
   * (a prefix pattern's are contiguous), over plain text a {@link Expr.Like} the CPU backend matches.
   */
  static Expr like(SpillwayRexTranslator translator, RexCall call) throws SpillwayUnsupportedException {
    if (!(call.getOperator() instanceof SqlLikeOperator op) || !op.isCaseSensitive()) {
      throw new SpillwayUnsupportedException("function " + call.getOperator().getName() + " in " + call);
    }
    List<RexNode> ops = call.getOperands();
    String pattern = SpillwayRexTranslator.textLiteral(ops.get(1));
    String escape = ops.size() > 2 ? SpillwayRexTranslator.textLiteral(ops.get(2)) : null;
    if (pattern == null || ops.size() > 2 && escape == null) {
      throw new SpillwayUnsupportedException("LIKE needs a literal pattern: " + call);
    }
    Pattern regex;
    try {
      regex = SqlLikePatterns.compile(pattern, escape);
    } catch (IllegalArgumentException e) {  // Calcite fails at run time, with its own message
      throw new SpillwayUnsupportedException(e.getMessage());
    }
    Expr column = translator.translateOperand(ops.get(0));
    SpillwayField field = translator.dictionaryColumn(ops.get(0));
    Expr match;
    if (field != null) {
      String prefix = pattern.endsWith("%") ? pattern.substring(0, pattern.length() - 1) : pattern;
      match = escape != null || prefix.contains("%") || prefix.contains("_")
          ? SpillwaySargs.textMatching(column, regex, translator.dictionary(field))
          : pattern.endsWith("%") ? SpillwaySargs.textPrefix(column, prefix, translator.dictionary(field))
          : SpillwaySargs.textComparison(column, SqlKind.EQUALS, prefix, translator.dictionary(field));
    } else if (column.type().kind() == ExprType.Kind.TEXT) {
      match = new Expr.Like(column, pattern, escape, regex);
    } else {
      throw new SpillwayUnsupportedException("LIKE over " + column.type() + " in " + call);
    }
    return op.isNegated() ? new Expr.Not(match) : match;
  }
}
