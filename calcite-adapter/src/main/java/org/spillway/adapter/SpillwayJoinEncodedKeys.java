package org.spillway.adapter;

import org.spillway.gpu.plan.NodeOutput;

import org.spillway.gpu.vector.ExprType;
import org.spillway.gpu.join.keys.JoinKeyColumn;
import org.spillway.gpu.join.keys.JoinKeyEncoder;
import org.spillway.gpu.join.keys.JoinKeys;

import java.util.ArrayList;
import java.util.List;

/**
 * The equi-join keys of both sides of one join run, one long per row, encoded by one {@link JoinKeyEncoder}
 * when first asked for: the build side's first, as the probe side's encoding needs it (unless the keys are a
 * column as it is, which a GPU join may then read in place without either being encoded).
 */
final class SpillwayJoinEncodedKeys {
  private final JoinKeyEncoder encoder;
  private final NodeOutput build;
  private final int[] buildColumns;
  private final List<SpillwayField> buildFields;
  private final NodeOutput probe;
  private final int[] probeColumns;
  private final List<SpillwayField> probeFields;
  private JoinKeys buildKeys;
  private JoinKeys probeKeys;

  /** The keys of a join of {@code left} and {@code right}, built on the left when {@code buildLeft}. */
  SpillwayJoinEncodedKeys(SpillwayJoinKeys keys, NodeOutput left, NodeOutput right, boolean buildLeft) {
    this.build = buildLeft ? left : right;
    this.buildColumns = buildLeft ? keys.leftKeys() : keys.rightKeys();
    this.buildFields = buildLeft ? keys.leftFields() : keys.rightFields();
    this.probe = buildLeft ? right : left;
    this.probeColumns = buildLeft ? keys.rightKeys() : keys.leftKeys();
    this.probeFields = buildLeft ? keys.rightFields() : keys.leftFields();
    this.encoder = JoinKeyEncoder.of(types(buildFields), types(probeFields));
  }

  /** Whether each side's key is its single key column as it is. */
  boolean asIs() {
    return encoder.keysAsIs();
  }

  JoinKeys build() {
    if (buildKeys == null) {
      buildKeys = encoder.encodeBuild(columns(build, buildColumns, buildFields));
    }
    return buildKeys;
  }

  JoinKeys probe() {
    if (probeKeys == null) {
      if (!encoder.keysAsIs()) {
        build();
      }
      probeKeys = encoder.encodeProbe(columns(probe, probeColumns, probeFields));
    }
    return probeKeys;
  }

  /** The build side for a GPU join. */
  SpillwayGpuJoinRun.Side buildSide() {
    return new SpillwayGpuJoinRun.Side(build, buildColumns, asIs(), this::build);
  }

  /** The probe side for a GPU join. */
  SpillwayGpuJoinRun.Side probeSide() {
    return new SpillwayGpuJoinRun.Side(probe, probeColumns, asIs(), this::probe);
  }

  NodeOutput buildColumns() {
    return build;
  }

  NodeOutput probeColumns() {
    return probe;
  }

  private static List<JoinKeyColumn> columns(NodeOutput side, int[] columns, List<SpillwayField> fields) {
    List<JoinKeyColumn> out = new ArrayList<>();
    for (int k = 0; k < columns.length; k++) {
      SpillwayField field = fields.get(k);
      out.add(new JoinKeyColumn(side.column(columns[k]),
          field.type().kind() == ExprType.Kind.STRING ? field.dictionary().get() : null));
    }
    return out;
  }

  private static List<ExprType> types(List<SpillwayField> fields) {
    return fields.stream().map(SpillwayField::type).toList();
  }
}
