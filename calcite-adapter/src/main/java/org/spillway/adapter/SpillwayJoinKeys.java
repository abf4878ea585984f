package org.spillway.adapter;

import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.JoinInfo;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexUtil;
import org.spillway.gpu.exec.ExprType;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The equi-join keys of a join as the Spillway joins take them, a single 64-bit key per row: one key column
 * of an exact type (integers, decimals of one scale, dates, booleans), or two 32-bit key columns packed into
 * one long (high word left, low word right). What else the join needs (join type, residual condition: an inner
 * join filters its output, the others evaluate it on each candidate pair in the CPU probe) is checked here too, so that the rule and the field derivation agree; what cannot run throws
 * {@link SpillwayUnsupportedException} with the reason EXPLAIN shows.
 */
record SpillwayJoinKeys(int[] leftKeys, int[] rightKeys, boolean packed, RexNode residual) {
  /** Key columns a join packs at most (two 32-bit keys make one 64-bit key). */
  static final int MAX_PACKED_KEYS = 2;

  /** The keys of {@code join}, whose inputs have the given fields. */
  static SpillwayJoinKeys of(Join join, List<SpillwayField> left, List<SpillwayField> right)
      throws SpillwayUnsupportedException {
    JoinRelType type = join.getJoinType();
    if (type != JoinRelType.INNER && type != JoinRelType.LEFT && type != JoinRelType.RIGHT
        && type != JoinRelType.SEMI && type != JoinRelType.ANTI) {
      throw new SpillwayUnsupportedException(type + " joins (the CPU and GPU joins preserve the probe side only)");
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
    List<ExprType> types = new ArrayList<>();
    for (int k = 0; k < leftKeys.length; k++) {
      types.add(keyType(left.get(leftKeys[k]), right.get(rightKeys[k]), k));
    }
    boolean packed = leftKeys.length > 1;
    if (packed && (leftKeys.length > MAX_PACKED_KEYS || !types.stream().allMatch(SpillwayJoinKeys::fits32))) {
      throw new SpillwayUnsupportedException(leftKeys.length + "-column key " + types + " does not pack into 64 bits "
          + "(two 32-bit columns do)");
    }
    return new SpillwayJoinKeys(leftKeys, rightKeys, packed, residual);
  }

  /** The left key columns, as a list. */
  List<Integer> leftKeysList() {
    return Arrays.stream(leftKeys).boxed().toList();
  }

  /** The right key columns, as a list. */
  List<Integer> rightKeysList() {
    return Arrays.stream(rightKeys).boxed().toList();
  }

  /** The type both sides of key pair {@code k} share, if their values compare as longs exactly. */
  private static ExprType keyType(SpillwayField left, SpillwayField right, int k) throws SpillwayUnsupportedException {
    for (SpillwayField f : List.of(left, right)) {
      if (!f.isSupported()) {
        throw new SpillwayUnsupportedException("join key " + k + ": " + f.unsupported());
      }
      switch (f.type().kind()) {
        case TEXT -> throw new SpillwayUnsupportedException("join key " + k + " is plain text");
        case BIG_DECIMAL -> throw new SpillwayUnsupportedException("join key " + k + " is a BIG_DECIMAL value (a "
            + "decimal quotient or a wide SUM: the joins take 64-bit keys)");
        case STRING -> throw new SpillwayUnsupportedException("join key " + k + " is dictionary-encoded text "
            + "(each table has its own codes)");
        case FLOAT64 -> throw new SpillwayUnsupportedException("join key " + k + " is FLOAT64 (-0.0 and NaN do not "
            + "compare by bits)");
        default -> { }
      }
    }
    ExprType l = left.type();
    ExprType r = right.type();
    boolean exact = l.isExactNumeric() && r.isExactNumeric() && l.scale() == r.scale();
    if (!exact && l.kind() != r.kind()) {
      throw new SpillwayUnsupportedException("join key " + k + " compares " + l + " with " + r);
    }
    return l.width() >= r.width() ? l : r;
  }

  private static boolean fits32(ExprType type) {
    return type.kind() == ExprType.Kind.INT32 || type.kind() == ExprType.Kind.DATE
        || type.kind() == ExprType.Kind.BOOLEAN;
  }
}
