package org.spillway.gpu.plan;

import org.spillway.gpu.join.JoinType;
import org.spillway.gpu.join.hash.JoinProbe;

/**
 * What a join outputs, in the terms of its probe side and its build side (the planner maps SQL's left and right
 * onto them once it has chosen the side to build on): INNER pairs matching rows; LEFT also keeps every probe row
 * without a match, RIGHT every build row without one, FULL both; SEMI and ANTI return the probe rows with and
 * without a match; MARK_BUILD marks the build rows a probe row matches (a semi- or anti-join built on its returned
 * side, see {@link MarkJoinNode}).
 */
public enum JoinKind {
  INNER, LEFT, RIGHT, FULL, SEMI, ANTI, MARK_BUILD;

  /** The probe of a pipelined hash join of this kind. */
  JoinProbe.Kind probeKind() {
    return switch (this) {
      case INNER -> JoinProbe.Kind.INNER;
      case LEFT -> JoinProbe.Kind.LEFT;
      case RIGHT -> JoinProbe.Kind.RIGHT;
      case FULL -> JoinProbe.Kind.FULL;
      case SEMI -> JoinProbe.Kind.SEMI;
      case ANTI -> JoinProbe.Kind.ANTI;
      case MARK_BUILD -> JoinProbe.Kind.MARK_BUILD;
    };
  }

  /**
   * The join type of a {@link MaterializedJoinNode}, whose joins preserve only their probe side; the kinds that
   * keep or mark build rows are the pipelined probe's alone.
   */
  JoinType materializedType() {
    return switch (this) {
      case INNER -> JoinType.INNER;
      case LEFT -> JoinType.LEFT_OUTER;
      case SEMI -> JoinType.SEMI;
      case ANTI -> JoinType.ANTI;
      case RIGHT, FULL, MARK_BUILD -> throw new IllegalArgumentException(
          "a materialized join preserves only its probe side; " + this + " joins run as a pipeline's probe");
    };
  }
}
