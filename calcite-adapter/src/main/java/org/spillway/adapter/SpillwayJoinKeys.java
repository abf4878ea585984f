package org.spillway.adapter;

import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.JoinInfo;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexUtil;
import org.spillway.gpu.plan.EquiJoinKeys;
import org.spillway.gpu.vector.ExprType;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The equi-join keys of a join: pairs of a left and a right column of any types that compare (exact numbers of
 * any width and scale, text with text, dates, booleans, FLOAT64), which the Spillway joins encode as a single
 * 64-bit key per row ({@link EquiJoinKeys#checkComparable}). What else the join needs (join type, residual condition: an
 * inner join filters its output, the others evaluate it on each candidate pair in the CPU probe) is checked here too, so that the rule and the field derivation agree; what cannot run throws
 * {@link SpillwayUnsupportedException} with the reason EXPLAIN shows.
 */
record SpillwayJoinKeys(int[] leftKeys, int[] rightKeys, List<SpillwayField> leftFields,
    List<SpillwayField> rightFields, RexNode residual) {
  /** The keys of {@code join}, whose inputs have the given fields. */
  static SpillwayJoinKeys of(Join join, List<SpillwayField> left, List<SpillwayField> right)
      throws SpillwayUnsupportedException {
    JoinRelType type = join.getJoinType();
    if (type != JoinRelType.INNER && type != JoinRelType.LEFT && type != JoinRelType.RIGHT
        && type != JoinRelType.FULL && type != JoinRelType.SEMI && type != JoinRelType.ANTI) {
      throw new SpillwayUnsupportedException(type + " joins (the joins are inner, outer, semi and anti joins)");
    }
    JoinInfo info = join.analyzeCondition();
    if (info.leftKeys.isEmpty()) {
      throw new SpillwayUnsupportedException("not an equi-join: no equality of a left and a right column in "
          + join.getCondition());
    }
    if (info.nullExclusionFlags.contains(false)) {
      throw new SpillwayUnsupportedException("IS NOT DISTINCT FROM keys (the joins never match NULL keys) in "
          + join.getCondition());
    }
    RexNode residual = null;
    if (!info.nonEquiConditions.isEmpty()) {
      residual = RexUtil.composeConjunction(join.getCluster().getRexBuilder(), info.nonEquiConditions);
      List<SpillwayField> joined = new ArrayList<>(left);
      joined.addAll(right);
      SpillwayRexTranslator.check(residual, joined);
    }
    int[] leftKeys = info.leftKeys.toIntArray();
    int[] rightKeys = info.rightKeys.toIntArray();
    List<SpillwayField> leftFields = new ArrayList<>();
    List<SpillwayField> rightFields = new ArrayList<>();
    for (int k = 0; k < leftKeys.length; k++) {
      leftFields.add(keyField(left.get(leftKeys[k]), k));
      rightFields.add(keyField(right.get(rightKeys[k]), k));
    }
    try {
      EquiJoinKeys.checkComparable(types(leftFields), types(rightFields));
    } catch (IllegalArgumentException e) {
      throw new SpillwayUnsupportedException(e.getMessage());
    }
    return new SpillwayJoinKeys(leftKeys, rightKeys, leftFields, rightFields, residual);
  }

  /** The keys as the engine's join node takes them: columns, types and the dictionaries of text keys. */
  EquiJoinKeys runtimeKeys() {
    return new EquiJoinKeys(leftKeys, rightKeys, types(leftFields), types(rightFields),
        SpillwayField.dictionaries(leftFields), SpillwayField.dictionaries(rightFields));
  }

  /** The left key columns, as a list. */
  List<Integer> leftKeysList() {
    return Arrays.stream(leftKeys).boxed().toList();
  }

  /** The right key columns, as a list. */
  List<Integer> rightKeysList() {
    return Arrays.stream(rightKeys).boxed().toList();
  }

  /** A key column's field, if the pipeline carries it. */
  private static SpillwayField keyField(SpillwayField field, int k) throws SpillwayUnsupportedException {
    if (!field.isSupported()) {
      throw new SpillwayUnsupportedException("join key " + k + ": " + field.unsupported());
    }
    if (field.type().kind() == ExprType.Kind.STRING && field.dictionary() == null) {
      throw new SpillwayUnsupportedException("join key " + k + " is dictionary-encoded text without a dictionary");
    }
    return field;
  }

  private static List<ExprType> types(List<SpillwayField> fields) {
    return fields.stream().map(SpillwayField::type).toList();
  }
}
