package org.spillway.gpu.plan;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.spillway.gpu.expr.Expr;
import org.spillway.gpu.join.hash.JoinProbe;
import org.spillway.gpu.pipeline.PipelineStage;
import org.spillway.gpu.vector.ExprType;

/** The probe stage a planner's {@link JoinProbeSpec} makes: the probe it describes, of every kind the engine has. */
class JoinProbeSpecTest {
  private static final List<ExprType> BUILD = List.of(ExprType.INT64, ExprType.TEXT, ExprType.INT32);

  @Test void everyKindMakesTheProbeItDescribes() {
    Set<JoinProbe.Kind> made = EnumSet.noneOf(JoinProbe.Kind.class);
    Expr residual = new Expr.Column(0, ExprType.BOOLEAN);
    for (JoinKind kind : JoinKind.values()) {
      // a semi- or anti-join outputs only the probe side, which comes first
      for (boolean buildFirst : kind == JoinKind.SEMI || kind == JoinKind.ANTI ? new boolean[] {false}
          : new boolean[] {false, true}) {
        JoinProbeSpec spec = new JoinProbeSpec(kind, new int[] {3, 1}, List.of(ExprType.INT32, ExprType.INT64),
            new int[] {2, 0}, BUILD, buildFirst, kind == JoinKind.INNER ? null : residual);
        PipelineStage stage = spec.stage();
        JoinProbe probe = ((PipelineStage.HashJoinProbe) stage).probe();
        assertEquals(kind.name(), probe.kind().name());
        assertArrayEquals(new int[] {3, 1}, probe.probeKeys());
        assertArrayEquals(new int[] {2, 0}, probe.buildKeys());
        assertEquals(buildFirst, probe.buildFirst());
        assertSame(kind == JoinKind.INNER ? null : residual, probe.residual());
        made.add(probe.kind());
      }
    }
    assertEquals(EnumSet.allOf(JoinProbe.Kind.class), made, "a probe kind the planner cannot describe");
  }

  @Test void theSpecKeepsItsOwnKeys() {
    int[] probeKeys = {0};
    JoinProbeSpec spec = new JoinProbeSpec(JoinKind.SEMI, probeKeys, List.of(ExprType.INT64), new int[] {0}, BUILD,
        false, null);
    probeKeys[0] = 5;
    assertArrayEquals(new int[] {0}, ((PipelineStage.HashJoinProbe) spec.stage()).probe().probeKeys());
  }

  @Test void keysThatCannotCompareFailSayingWhichPair() {
    JoinProbeSpec spec = new JoinProbeSpec(JoinKind.INNER, new int[] {0}, List.of(ExprType.INT64), new int[] {1},
        BUILD, false, null);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, spec::stage);
    IllegalArgumentException checked = assertThrows(IllegalArgumentException.class,
        () -> EquiJoinKeys.checkComparable(List.of(ExprType.INT64), List.of(ExprType.TEXT)));
    assertEquals(e.getMessage(), checked.getMessage());
    assertTrue(e.getMessage().contains("key 0"), e.getMessage());
    EquiJoinKeys.checkComparable(List.of(ExprType.INT32, ExprType.decimal(2)), List.of(ExprType.INT64,
        ExprType.decimal(2)));
  }
}
