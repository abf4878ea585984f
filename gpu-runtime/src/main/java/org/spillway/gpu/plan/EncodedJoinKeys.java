package org.spillway.gpu.plan;

import org.spillway.gpu.vector.ExprType;
import org.spillway.gpu.join.keys.JoinKeyColumn;
import org.spillway.gpu.join.keys.JoinKeyEncoder;
import org.spillway.gpu.join.keys.JoinKeys;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The equi-join keys of both sides of one join run, one long per row, encoded by one {@link JoinKeyEncoder}
 * when first asked for: the build side's first, as the probe side's encoding needs it (unless the keys are a
 * column as it is, which a GPU join may then read in place without either being encoded).
 */
final class EncodedJoinKeys {
  private final JoinKeyEncoder encoder;
  private final NodeOutput build;
  private final int[] buildColumns;
  private final List<ExprType> buildTypes;
  private final List<Supplier<List<String>>> buildDictionaries;
  private final NodeOutput probe;
  private final int[] probeColumns;
  private final List<ExprType> probeTypes;
  private final List<Supplier<List<String>>> probeDictionaries;
  private JoinKeys buildKeys;
  private JoinKeys probeKeys;

  /** The keys of a join of {@code left} and {@code right}, built on the left when {@code buildLeft}. */
  EncodedJoinKeys(EquiJoinKeys keys, NodeOutput left, NodeOutput right, boolean buildLeft) {
    this.build = buildLeft ? left : right;
    this.buildColumns = buildLeft ? keys.leftKeys() : keys.rightKeys();
    this.buildTypes = buildLeft ? keys.leftTypes() : keys.rightTypes();
    this.buildDictionaries = buildLeft ? keys.leftDictionaries() : keys.rightDictionaries();
    this.probe = buildLeft ? right : left;
    this.probeColumns = buildLeft ? keys.rightKeys() : keys.leftKeys();
    this.probeTypes = buildLeft ? keys.rightTypes() : keys.leftTypes();
    this.probeDictionaries = buildLeft ? keys.rightDictionaries() : keys.leftDictionaries();
    this.encoder = JoinKeyEncoder.of(buildTypes, probeTypes);
  }

  /** Whether each side's key is its single key column as it is. */
  boolean asIs() {
    return encoder.keysAsIs();
  }

  JoinKeys build() {
    if (buildKeys == null) {
      buildKeys = encoder.encodeBuild(columns(build, buildColumns, buildDictionaries));
    }
    return buildKeys;
  }

  JoinKeys probe() {
    if (probeKeys == null) {
      if (!encoder.keysAsIs()) {
        build();
      }
      probeKeys = encoder.encodeProbe(columns(probe, probeColumns, probeDictionaries));
    }
    return probeKeys;
  }

  /** The build side for a GPU join. */
  GpuJoinRun.Side buildSide() {
    return new GpuJoinRun.Side(build, buildColumns, asIs(), this::build);
  }

  /** The probe side for a GPU join. */
  GpuJoinRun.Side probeSide() {
    return new GpuJoinRun.Side(probe, probeColumns, asIs(), this::probe);
  }

  NodeOutput buildColumns() {
    return build;
  }

  NodeOutput probeColumns() {
    return probe;
  }

  private static List<JoinKeyColumn> columns(NodeOutput side, int[] columns,
      List<Supplier<List<String>>> dictionaries) {
    List<JoinKeyColumn> out = new ArrayList<>();
    for (int k = 0; k < columns.length; k++) {
      Supplier<List<String>> dictionary = dictionaries.get(k);
      out.add(new JoinKeyColumn(side.column(columns[k]), dictionary != null ? dictionary.get() : null));
    }
    return out;
  }
}
