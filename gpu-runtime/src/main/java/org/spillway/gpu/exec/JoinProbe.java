package org.spillway.gpu.exec;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.IntFunction;
import org.spillway.gpu.device.MemoryGuard;

/**
 * The probe of a pipelined hash join: a streaming operator of the probe side's pipeline that looks each morsel's
 * keys up in the {@link JoinHashTable} built from the other side (a pipeline breaker run before) and turns the
 * morsel into the joined rows, gathering from the build side only the columns read later (late materialization).
 *
 * <p>The probe side is the preserved side of an outer join and the returned side of a semi- or anti-join. A
 * condition beyond key equality (the residual) is evaluated on each candidate pair before the kind decides: an
 * inner join keeps the pairs that pass, a left join also each probe row without any (with NULL build columns), a
 * semi-join each probe row with one, an anti-join each probe row without one. NULL keys match nothing.
 *
 * <p>A plan holds the probe unbound (what to probe with, the build side's types); each run binds it to that run's
 * table and build rows ({@link #bind}).
 */
public final class JoinProbe {
  /** What a probe row becomes; LEFT is the outer join that preserves the probe side. */
  public enum Kind {
    INNER, LEFT, SEMI, ANTI;

    /** Whether the build side's columns are part of the output. */
    public boolean projectsBuild() {
      return this == INNER || this == LEFT;
    }
  }

  private final Kind kind;
  private final int[] probeKeys;
  private final List<ExprType> buildTypes;
  private final boolean buildFirst;
  private final Expr residual;
  private final JoinHashTable table;
  private final IndexedColumns build;

  /**
   * A probe of columns {@code probeKeys} of the pipeline against a build side of {@code buildTypes}. The joined row
   * is the build side's columns then the probe side's when {@code buildFirst}, else the other way round; the output
   * is the joined row, or (semi, anti) the probe side's columns. {@code residual} (null: none) reads the joined row.
   */
  public JoinProbe(Kind kind, int[] probeKeys, List<ExprType> buildTypes, boolean buildFirst, Expr residual) {
    this(kind, probeKeys, buildTypes, buildFirst, residual, null, null);
  }

  private JoinProbe(Kind kind, int[] probeKeys, List<ExprType> buildTypes, boolean buildFirst, Expr residual,
      JoinHashTable table, IndexedColumns build) {
    if (buildFirst && !kind.projectsBuild()) {
      throw new IllegalArgumentException("a " + kind + " join outputs the probe side, so it cannot put the build side first");
    }
    this.kind = kind;
    this.probeKeys = probeKeys.clone();
    this.buildTypes = List.copyOf(buildTypes);
    this.buildFirst = buildFirst;
    this.residual = residual;
    this.table = table;
    this.build = build;
  }

  /** This probe against one run's build side: its rows and the table over their keys. */
  public JoinProbe bind(JoinHashTable table, IndexedColumns build) {
    if (!build.types().equals(buildTypes)) {
      throw new IllegalArgumentException("build side of " + build.types() + " for a probe planned against " + buildTypes);
    }
    return new JoinProbe(kind, probeKeys, buildTypes, buildFirst, residual, table, build);
  }

  /** The table over columns {@code keys} of {@code build}: one key column, or two 32-bit ones packed. */
  public static JoinHashTable buildTable(IndexedColumns build, int[] keys, int threads, BooleanSupplier cancelled) {
    ColumnVector[] columns = new ColumnVector[keys.length];
    for (int k = 0; k < keys.length; k++) {
      columns[k] = build.column(keys[k]);
    }
    JoinKeyPacking.Keys packed = JoinKeyPacking.pack(columns, build.rows());
    return JoinHashTable.build(packed.keys(), packed.nulls(), build.rows(), threads, cancelled);
  }

  public Kind kind() {
    return kind;
  }

  public int[] probeKeys() {
    return probeKeys.clone();
  }

  public List<ExprType> buildTypes() {
    return buildTypes;
  }

  public boolean buildFirst() {
    return buildFirst;
  }

  public Expr residual() {
    return residual;
  }

  /** The output types over a probe side of {@code probeTypes}. */
  public List<ExprType> outputTypes(List<ExprType> probeTypes) {
    return kind.projectsBuild() ? joinedTypes(probeTypes) : probeTypes;
  }

  /** The joined row's types (what the residual reads). */
  List<ExprType> joinedTypes(List<ExprType> probeTypes) {
    List<ExprType> out = new ArrayList<>(buildFirst ? buildTypes : probeTypes);
    out.addAll(buildFirst ? probeTypes : buildTypes);
    return out;
  }

  /** Position in the joined row of probe column {@code p}. */
  int joinedProbe(int p) {
    return buildFirst ? buildTypes.size() + p : p;
  }

  /** Position in the joined row of build column {@code b}, given the probe side's column count. */
  int joinedBuild(int b, int probeColumns) {
    return buildFirst ? b : probeColumns + b;
  }

  IndexedColumns build() {
    if (build == null) {
      throw new IllegalStateException("join probe run before its build side was bound");
    }
    return build;
  }

  /** Pairs of a run of probe rows: probe positions and build rows (-1: none), in probe order. */
  record Matches(int[] probeRows, int[] buildRows, int count) {
  }

  /**
   * The matches of a morsel of {@code rows} rows, whose columns {@code probeColumn} gives (loading them as needed),
   * of {@code probeColumns} columns in all; {@link Cursor#next} hands them out in runs of bounded size, so that a
   * key with many matches never makes one huge batch.
   */
  Cursor cursor(IntFunction<ColumnVector> probeColumn, int rows, int probeColumns) {
    if (table == null) {
      throw new IllegalStateException("join probe run before its build side was bound");
    }
    ColumnVector[] keyColumns = new ColumnVector[probeKeys.length];
    for (int k = 0; k < probeKeys.length; k++) {
      keyColumns[k] = probeColumn.apply(probeKeys[k]);
    }
    return new Cursor(JoinKeyPacking.pack(keyColumns, rows), probeColumn, rows, probeColumns);
  }

  /** Walks a morsel's probe rows in order. */
  final class Cursor {
    private final JoinKeyPacking.Keys keys;
    private final IntFunction<ColumnVector> probeColumn;
    private final int rows;
    private final int probeColumns;
    private int row;

    private Cursor(JoinKeyPacking.Keys keys, IntFunction<ColumnVector> probeColumn, int rows, int probeColumns) {
      this.keys = keys;
      this.probeColumn = probeColumn;
      this.rows = rows;
      this.probeColumns = probeColumns;
    }

    /**
     * The pairs of the next probe rows, stopping after the row whose candidates reach {@code maxPairs}; null once
     * every row was probed.
     */
    Matches next(int maxPairs) {
      if (row >= rows) {
        return null;
      }
      int from = row;
      Pairs pairs = new Pairs(Math.min(rows - from, maxPairs));
      boolean candidatesOnly = residual != null;
      long[] k = keys.keys();
      boolean[] nulls = keys.nulls();
      for (; row < rows && pairs.count < maxPairs; row++) {
        int b = nulls != null && nulls[row] ? -1 : table.first(k[row]);
        if (candidatesOnly || kind == Kind.INNER || kind == Kind.LEFT && b >= 0) {
          for (; b >= 0; b = table.next(b)) {
            pairs.add(row, b);
          }
        } else if (kind == Kind.LEFT || (kind == Kind.SEMI) == (b >= 0)) {
          pairs.add(row, -1);
        }
      }
      return candidatesOnly ? applyResidual(pairs, probeColumn, from, row, probeColumns) : pairs.matches();
    }
  }

  /** The candidates that pass the residual, turned into the kind's output pairs. */
  private Matches applyResidual(Pairs candidates, IntFunction<ColumnVector> probeColumn, int from, int to,
      int probeColumns) {
    int n = candidates.count;
    int[] probeRows = candidates.probe;
    int[] buildRows = candidates.build;
    int[] passing = new int[n + 1];
    int passed = 0;
    if (n > 0) {
      ColumnVector result = VectorEvaluator.evaluate(residual, c -> joinedColumn(c, probeColumn, probeColumns,
          probeRows, buildRows, n), n);
      passed = VectorEvaluator.selectTrue(result, passing);
    }
    Pairs out = new Pairs(kind == Kind.INNER ? passed : to - from);
    if (kind == Kind.INNER) {
      for (int i = 0; i < passed; i++) {
        out.add(probeRows[passing[i]], buildRows[passing[i]]);
      }
      return out.matches();
    }
    // Candidates come in probe order, so one walk over the probe rows pairs each with its passing candidates.
    int p = 0;
    for (int r = from; r < to; r++) {
      boolean any = false;
      while (p < passed && probeRows[passing[p]] == r) {
        any = true;
        if (kind == Kind.LEFT) {
          out.add(r, buildRows[passing[p]]);
        }
        p++;
      }
      if (kind == Kind.LEFT && !any || (kind == Kind.SEMI) == any && kind != Kind.LEFT) {
        out.add(r, -1);
      }
    }
    return out.matches();
  }

  private ColumnVector joinedColumn(int c, IntFunction<ColumnVector> probeColumn, int probeColumns, int[] probeRows,
      int[] buildRows, int n) {
    int b = buildFirst ? c : c - probeColumns;
    if (b >= 0 && b < buildTypes.size()) {
      return build().gather(b, buildRows, n);
    }
    return probeColumn.apply(buildFirst ? c - buildTypes.size() : c).gather(probeRows, n);
  }

  @Override public String toString() {
    return "JoinProbe(" + kind + ", keys " + Arrays.toString(probeKeys) + ", build " + buildTypes
        + (buildFirst ? ", build first" : "") + (residual == null ? "" : ", residual " + residual) + ")";
  }

  /** Pairs appended row by row, growing as needed. */
  private static final class Pairs {
    int[] probe;
    int[] build;
    int count;

    Pairs(int capacity) {
      probe = new int[Math.max(16, capacity)];
      build = new int[probe.length];
    }

    void add(int probeRow, int buildRow) {
      if (count == probe.length) {
        MemoryGuard.require("the matches of one morsel of a join probe (" + count + " pairs so far)",
            (long) count * 2 * 2 * Integer.BYTES);
        probe = Arrays.copyOf(probe, count * 2);
        build = Arrays.copyOf(build, count * 2);
      }
      probe[count] = probeRow;
      build[count] = buildRow;
      count++;
    }

    Matches matches() {
      return new Matches(probe, build, count);
    }
  }
}
