package org.spillway.gpu.join.hash;

import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Collections;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.spillway.gpu.device.MemoryGuard;
import org.spillway.gpu.join.keys.JoinKeyColumn;
import org.spillway.gpu.join.keys.JoinKeyEncoder;
import org.spillway.gpu.join.keys.JoinKeys;
import org.spillway.gpu.expr.Expr;
import org.spillway.gpu.expr.VectorEvaluator;
import org.spillway.gpu.vector.IndexedColumns;

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
 * <p>A semi- or anti-join may also build on its returned side and stream the other side through the table (DuckDB's
 * RIGHT_SEMI and RIGHT_ANTI, the mark join of Neumann and Kemper): the probe then only marks each build row that a
 * probe row matches ({@link Kind#MARK_BUILD}) and passes no row on; once every morsel was probed, the marked build
 * rows are the semi-join's output and the unmarked ones the anti-join's ({@link #markedBuildRows}). One such probe
 * may keep several marks per build row, each under a condition of its own ({@link #marking}): semi- and anti-joins
 * of the same build rows on the same keys whose probe sides read the same table (TPC-H Q21's EXISTS and NOT EXISTS)
 * then stream that table once, a probe side's filter being part of its condition.
 *
 * <p>An outer join may also build on its preserved side and stream the other side through the table (DuckDB's
 * RIGHT OUTER join on the build side): a {@link Kind#RIGHT} probe passes on the matching pairs, as an inner join,
 * and marks the build rows they hold; once every morsel was probed, the pipeline pushes the unmarked build rows,
 * with NULL probe columns, through the stages after the probe ({@link #unmatchedBuildColumns}). A {@link Kind#FULL}
 * probe is a LEFT probe that marks likewise, so both sides are preserved.
 *
 * <p>A plan holds the probe unbound (what to probe with, the build side's types); each run binds it to that run's
 * table and build rows ({@link #bind}).
 */
public final class JoinProbe {
  /** Probe rows whose first matches are looked up together ({@link JoinHashTable#firsts}). */
  private static final int PROBE_GROUP = 64;
  /**
   * What a probe row becomes; LEFT is the outer join that preserves the probe side, RIGHT the one that preserves the
   * build side, FULL both. MARK_BUILD marks the build rows the probe row matches and outputs nothing: it ends its
   * pipeline.
   */
  public enum Kind {
    INNER, LEFT, SEMI, ANTI, MARK_BUILD, RIGHT, FULL;

    /** Whether the build side's columns are part of the output. */
    public boolean projectsBuild() {
      return this == INNER || this == LEFT || this == RIGHT || this == FULL;
    }

    /** Whether the build rows that no probe row matched are output too, after the last probe morsel. */
    public boolean preservesBuild() {
      return this == RIGHT || this == FULL;
    }

    /** What the probe makes of each probe row: a RIGHT probe pairs as an inner join, a FULL one as a left join. */
    Kind perProbeRow() {
      return this == RIGHT ? INNER : this == FULL ? LEFT : this;
    }
  }

  private final Kind kind;
  private final int[] probeKeys;
  private final List<ExprType> probeKeyTypes;
  private final int[] buildKeys;
  private final List<ExprType> buildTypes;
  private final boolean buildFirst;
  private final Expr residual;
  private final JoinHashTable table;
  private final IndexedColumns build;
  private final JoinKeyEncoder encoder;
  private final List<List<String>> probeDictionaries;
  /**
   * The conditions of a MARK_BUILD probe's marks, one mark per condition (null: a key match is enough); null for
   * the other kinds.
   */
  private final List<Expr> markConditions;
  /**
   * Per mark and build row of a bound MARK_BUILD, RIGHT or FULL probe (RIGHT and FULL keep one mark): whether a
   * probe row matched it. Workers only ever write true, so their racing plain writes agree; the scheduler's join of
   * the workers makes every mark visible to the reader.
   */
  private final boolean[][] marks;
  /**
   * Per mark of a MARK_BUILD probe, whether its mark alone settles a build row (an anti-join's: once marked, the row
   * is dropped whatever the other marks say), so that a settled row's candidates need no further test; null: none does.
   */
  private final boolean[] settling;
  /** A probe bound to its rows alone ({@link #bindRows}): the build side's key dictionaries its table would encode. */
  private final List<List<String>> unbuiltDictionaries;
  /** The probe with its table that {@link #withTable} made of this rows-only one, once made. */
  private JoinProbe tabled;

  /**
   * A probe of columns {@code probeKeys} (of {@code probeKeyTypes}) of the pipeline against columns
   * {@code buildKeys} of a build side of {@code buildTypes}. The joined row is the build side's columns then the
   * probe side's when {@code buildFirst}, else the other way round; the output is the joined row, or (semi, anti)
   * the probe side's columns (a MARK_BUILD probe outputs none). {@code residual} (null: none) reads the joined row.
   * Key types that cannot compare fail here, with {@link JoinKeyEncoder}'s reason.
   */
  public JoinProbe(Kind kind, int[] probeKeys, List<ExprType> probeKeyTypes, int[] buildKeys,
      List<ExprType> buildTypes, boolean buildFirst, Expr residual) {
    this(kind, probeKeys, probeKeyTypes, buildKeys, buildTypes, buildFirst, residual,
        kind == Kind.MARK_BUILD ? Collections.singletonList(residual) : null, null, null, null, null, null, null, null);
    JoinKeyEncoder.of(buildKeyTypes(), this.probeKeyTypes);
  }

  /**
   * A MARK_BUILD probe that keeps one mark per condition in {@code conditions} (null: a key match is enough), each
   * reading the joined row, build side first: what several semi- and anti-joins of the same build side on the
   * same keys mark, their probe sides streamed as one ({@link #markedBuildRows(boolean[])}).
   */
  public static JoinProbe marking(int[] probeKeys, List<ExprType> probeKeyTypes, int[] buildKeys,
      List<ExprType> buildTypes, List<Expr> conditions) {
    return marking(probeKeys, probeKeyTypes, buildKeys, buildTypes, conditions, null);
  }

  /**
   * As above, knowing per mark whether its join keeps the marked build rows ({@code keepsMarked}: a semi-join's, true;
   * an anti-join's, false; null: unknown): a row an anti-join's mark drops is settled, and its further candidates go
   * untested.
   */
  public static JoinProbe marking(int[] probeKeys, List<ExprType> probeKeyTypes, int[] buildKeys,
      List<ExprType> buildTypes, List<Expr> conditions, List<Boolean> keepsMarked) {
    if (conditions.isEmpty()) {
      throw new IllegalArgumentException("a marking probe needs at least one mark");
    }
    if (keepsMarked != null && keepsMarked.size() != conditions.size()) {
      throw new IllegalArgumentException(keepsMarked.size() + " joins for " + conditions.size() + " marks");
    }
    boolean[] settling = null;
    for (int m = 0; keepsMarked != null && m < keepsMarked.size(); m++) {
      if (!keepsMarked.get(m)) {
        settling = settling != null ? settling : new boolean[conditions.size()];
        settling[m] = true;
      }
    }
    JoinProbe probe = new JoinProbe(Kind.MARK_BUILD, probeKeys, probeKeyTypes, buildKeys, buildTypes, true,
        conditions.size() == 1 ? conditions.get(0) : null, new ArrayList<>(conditions), null, null, null, null,
        settling, null, null);
    JoinKeyEncoder.of(probe.buildKeyTypes(), probe.probeKeyTypes);
    return probe;
  }

  private JoinProbe(Kind kind, int[] probeKeys, List<ExprType> probeKeyTypes, int[] buildKeys,
      List<ExprType> buildTypes, boolean buildFirst, Expr residual, List<Expr> markConditions, JoinHashTable table,
      IndexedColumns build, JoinKeyEncoder encoder, List<List<String>> probeDictionaries, boolean[] settling,
      List<List<String>> unbuiltDictionaries, boolean[][] sharedMarks) {
    if (buildFirst && !kind.projectsBuild() && kind != Kind.MARK_BUILD) {
      throw new IllegalArgumentException("a " + kind + " join outputs the probe side, so it cannot put the build side first");
    }
    if (probeKeys.length != buildKeys.length || probeKeys.length != probeKeyTypes.size() || probeKeys.length == 0) {
      throw new IllegalArgumentException("probe keys " + Arrays.toString(probeKeys) + " of " + probeKeyTypes
          + " do not pair with build keys " + Arrays.toString(buildKeys));
    }
    this.kind = kind;
    this.probeKeys = probeKeys.clone();
    this.probeKeyTypes = List.copyOf(probeKeyTypes);
    this.buildKeys = buildKeys.clone();
    this.buildTypes = List.copyOf(buildTypes);
    this.buildFirst = buildFirst;
    this.residual = residual;
    this.table = table;
    this.build = build;
    this.encoder = encoder;
    this.probeDictionaries = probeDictionaries;
    this.markConditions = markConditions;
    this.settling = settling;
    this.unbuiltDictionaries = unbuiltDictionaries;
    int markCount = kind == Kind.MARK_BUILD ? markConditions.size() : kind.preservesBuild() ? 1 : 0;
    this.marks = sharedMarks != null ? sharedMarks
        : markCount > 0 && build != null ? new boolean[markCount][build.rows()] : null;
  }

  private List<ExprType> buildKeyTypes() {
    return Arrays.stream(buildKeys).mapToObj(buildTypes::get).toList();
  }

  /**
   * This probe against one run's build side: encodes the build side's keys (text key columns with their
   * dictionaries, null for other columns; the probe side's likewise) and builds the table over them on all cores.
   */
  public JoinProbe bind(IndexedColumns build, List<List<String>> buildDictionaries,
      List<List<String>> probeDictionaries, int threads, BooleanSupplier cancelled) {
    if (!build.types().equals(buildTypes)) {
      throw new IllegalArgumentException("build side of " + build.types() + " for a probe planned against " + buildTypes);
    }
    JoinKeyEncoder encoder = JoinKeyEncoder.of(buildKeyTypes(), probeKeyTypes);
    List<JoinKeyColumn> columns = new ArrayList<>();
    for (int k = 0; k < buildKeys.length; k++) {
      columns.add(new JoinKeyColumn(build.column(buildKeys[k]), buildDictionaries.get(k)));
    }
    JoinKeys keys = encoder.encodeBuild(columns);
    JoinHashTable table = JoinHashTable.build(keys.keys(), keys.validity(), build.rows(), threads, cancelled);
    return new JoinProbe(kind, probeKeys, probeKeyTypes, buildKeys, buildTypes, buildFirst, residual, markConditions,
        table, build, encoder, new ArrayList<>(probeDictionaries), settling, null, null);
  }

  /**
   * This MARK_BUILD probe bound to a build side's rows without building its table: a GPU pipeline builds its own
   * table from the rows and hands back its marks ({@link #markBuildRows}), so the CPU's table is built only where the
   * CPU probes after all ({@link #withTable}: the GPU pipeline's fallback, or the CPU's share of its scan).
   */
  public JoinProbe bindRows(IndexedColumns build, List<List<String>> buildDictionaries,
      List<List<String>> probeDictionaries) {
    if (kind != Kind.MARK_BUILD) {
      throw new IllegalArgumentException("only a marking probe is bound without its table, not a " + kind + " probe");
    }
    if (!build.types().equals(buildTypes)) {
      throw new IllegalArgumentException("build side of " + build.types() + " for a probe planned against " + buildTypes);
    }
    return new JoinProbe(kind, probeKeys, probeKeyTypes, buildKeys, buildTypes, buildFirst, residual, markConditions,
        null, build, null, new ArrayList<>(probeDictionaries), settling, new ArrayList<>(buildDictionaries), null);
  }

  /**
   * This probe with its table: itself where it has one, else (bound by {@link #bindRows}) a probe over the same rows
   * whose table is built now, on all cores, and whose marks are this one's, so that what either marks both read. Made
   * once; a build that {@code cancelled} stopped is made again by the next call.
   */
  public synchronized JoinProbe withTable(int threads, BooleanSupplier cancelled) {
    if (table != null) {
      return this;
    }
    if (unbuiltDictionaries == null) {
      throw new IllegalStateException("join probe run before its build side was bound");
    }
    if (tabled == null) {
      JoinProbe built = bind(build, unbuiltDictionaries, probeDictionaries, threads, cancelled);
      tabled = new JoinProbe(kind, probeKeys, probeKeyTypes, buildKeys, buildTypes, buildFirst, residual,
          markConditions, built.table, build, built.encoder, probeDictionaries, settling, null, marks);
    }
    return tabled;
  }

  /** The table of a bound probe (null before {@link #bind}). */
  public JoinHashTable table() {
    return table;
  }

  public int[] buildKeys() {
    return buildKeys.clone();
  }

  public Kind kind() {
    return kind;
  }

  public int[] probeKeys() {
    return probeKeys.clone();
  }

  public List<ExprType> probeKeyTypes() {
    return probeKeyTypes;
  }

  public List<ExprType> buildTypes() {
    return buildTypes;
  }

  public boolean buildFirst() {
    return buildFirst;
  }

  /** The condition of a probe with one (a MARK_BUILD probe with several marks has none: {@link #conditions}). */
  public Expr residual() {
    return residual;
  }

  /** The marks of a MARK_BUILD probe (1 but for {@link #marking}), 0 for the other kinds. */
  public int markCount() {
    return markConditions == null ? 0 : markConditions.size();
  }

  /** The condition of a MARK_BUILD probe's mark {@code m} over the joined row (null: a key match is enough). */
  public Expr markCondition(int m) {
    return markConditions.get(m);
  }

  /** Every condition that reads the joined row: the residual, or the marks' conditions (nulls left out). */
  public List<Expr> conditions() {
    List<Expr> all = new ArrayList<>();
    for (Expr condition : markConditions != null ? markConditions : Collections.singletonList(residual)) {
      if (condition != null) {
        all.add(condition);
      }
    }
    return all;
  }

  /** The output types over a probe side of {@code probeTypes}. */
  public List<ExprType> outputTypes(List<ExprType> probeTypes) {
    if (kind == Kind.MARK_BUILD) {
      return List.of();
    }
    return kind.projectsBuild() ? joinedTypes(probeTypes) : probeTypes;
  }

  /**
   * The build rows, ascending, that a probe row matched ({@code matched}: the output of a semi-join that built on its
   * returned side) or that none did (the anti-join's; a NULL key matches nothing, as NOT EXISTS wants). Read once
   * the pipeline that ends in this MARK_BUILD probe finished.
   */
  public int[] markedBuildRows(boolean matched) {
    return markedBuildRows(new boolean[] {matched});
  }

  /**
   * The build rows, ascending, whose marks are as {@code wanted} says, mark by mark: true for a semi-join's, false
   * for an anti-join's. Semi- and anti-joins stacked on one build side keep the rows all of them keep, since each
   * decides per build row.
   */
  public int[] markedBuildRows(boolean[] wanted) {
    if (marks == null) {
      throw new IllegalStateException(kind == Kind.MARK_BUILD || kind.preservesBuild()
          ? "marks read before the build side was bound" : "a " + kind + " join probe marks no build rows");
    }
    if (wanted.length != marks.length) {
      throw new IllegalArgumentException(wanted.length + " marks wanted of a probe that keeps " + marks.length);
    }
    int buildRows = marks[0].length;
    int[] rows = new int[buildRows];
    int n = 0;
    if (marks.length == 1) {  // one join's marks (the RIGHT and FULL probes' too): a tight loop
      boolean[] mark = marks[0];
      boolean matched = wanted[0];
      for (int r = 0; r < buildRows; r++) {
        rows[n] = r;
        n += mark[r] == matched ? 1 : 0;
      }
      return Arrays.copyOf(rows, n);
    }
    if (marks.length == 2) {  // Q21's EXISTS and NOT EXISTS: a tight loop too
      boolean[] first = marks[0];
      boolean[] second = marks[1];
      boolean firstWanted = wanted[0];
      boolean secondWanted = wanted[1];
      for (int r = 0; r < buildRows; r++) {
        rows[n] = r;
        n += first[r] == firstWanted & second[r] == secondWanted ? 1 : 0;
      }
      return Arrays.copyOf(rows, n);
    }
    for (int r = 0; r < buildRows; r++) {
      boolean kept = true;
      for (int m = 0; m < marks.length && kept; m++) {
        kept = marks[m][r] == wanted[m];
      }
      if (kept) {
        rows[n++] = r;
      }
    }
    return Arrays.copyOf(rows, n);
  }

  /** The joined row's types (what the residual reads). */
  List<ExprType> joinedTypes(List<ExprType> probeTypes) {
    List<ExprType> out = new ArrayList<>(buildFirst ? buildTypes : probeTypes);
    out.addAll(buildFirst ? probeTypes : buildTypes);
    return out;
  }

  /** Position in the joined row of probe column {@code p}. */
  public int joinedProbe(int p) {
    return buildFirst ? buildTypes.size() + p : p;
  }

  /**
   * Sets the marks of a bound MARK_BUILD probe on the build rows where {@code marked} is non-zero: the marks a GPU
   * pipeline made (one byte per mark and build row, mark by mark), added to those the CPU workers of a shared scan set.
   */
  public void markBuildRows(byte[] marked) {
    if (kind != Kind.MARK_BUILD || marks == null || marked.length != (long) marks.length * marks[0].length) {
      throw new IllegalStateException("marks of " + marked.length + " build rows for a " + kind + " probe of "
          + (marks == null ? "no" : marks.length + " x " + marks[0].length) + " marks");
    }
    int rows = marks[0].length;
    for (int m = 0; m < marks.length; m++) {
      boolean[] mark = marks[m];
      for (int r = 0, at = m * rows; r < rows; r++, at++) {
        if (marked[at] != 0) {  // only ever set: CPU workers of a shared scan may be marking the same rows
          mark[r] = true;
        }
      }
    }
  }

  /** Position in the joined row of build column {@code b}, given the probe side's column count. */
  public int joinedBuild(int b, int probeColumns) {
    return buildFirst ? b : probeColumns + b;
  }

  public IndexedColumns build() {
    if (build == null) {
      throw new IllegalStateException("join probe run before its build side was bound");
    }
    return build;
  }

  /**
   * Pairs of a run of probe rows: probe positions and build rows (-1: none), in probe order, in the first
   * {@code count} places of the arrays (which may be longer). The arrays are the cursor's buffers: they hold until
   * the cursor's next {@link Cursor#next} or {@link Cursor#close}, so a reader copies what it keeps.
   */
  public record Matches(int[] probeRows, int[] buildRows, int count) {
    private static final Matches NONE = new Matches(new int[0], new int[0], 0);
  }

  /** What a probe cursor reads of a morsel. */
  public interface ProbeInput {
    /** Column {@code c} for the morsel's rows, loaded (and kept by the morsel) if it was not yet. */
    ColumnVector column(int c);

    /** Whether column {@code c} is still in its source, so {@link #readLongs} can read it. */
    boolean inSource(int c);

    /**
     * Reads the long lane of column {@code c} (still in its source) for the morsel's rows into {@code values}, and
     * its NULL flags into {@code nulls}, without the morsel keeping a copy; returns whether any row is NULL.
     */
    boolean readLongs(int c, long[] values, boolean[] nulls);

    /**
     * Column {@code c} at the morsel's rows {@code rows[0 .. n-1]} (ascending): what a condition reads of the
     * candidate pairs, which a selective probe finds for few of the morsel's rows, so a column still in its source
     * is read at those rows only.
     */
    default ColumnVector gather(int c, int[] rows, int n) {
      return column(c).gather(rows, n);
    }
  }

  /**
   * The matches of a morsel of {@code rows} rows, whose columns {@code input} gives (loading them as needed), of
   * {@code probeColumns} columns in all; {@link Cursor#next} hands them out in runs of bounded size, so that a key
   * with many matches never makes one huge batch. A key column the probe reads as it is and the morsel has not
   * loaded is read into the cursor's buffers instead: the morsel would only keep a copy nobody reads again.
   */
  public Cursor cursor(ProbeInput input, int rows, int probeColumns) {
    if (table == null) {
      throw new IllegalStateException(unbuiltDictionaries != null
          ? "join probe bound to its rows without its table: probed through withTable"
          : "join probe run before its build side was bound");
    }
    PairBuffers buffers = PairBuffers.take();
    try {
      JoinKeys keys;
      if (encoder.keysAsIs() && input.inSource(probeKeys[0])) {
        long[] values = buffers.keys(rows);
        boolean[] nulls = buffers.keyNulls(rows);
        boolean anyNull = input.readLongs(probeKeys[0], values, nulls);
        keys = new JoinKeys(values, anyNull ? JoinKeys.validity(nulls, rows) : null);
      } else {
        List<JoinKeyColumn> keyColumns = new ArrayList<>(probeKeys.length);
        for (int k = 0; k < probeKeys.length; k++) {
          keyColumns.add(new JoinKeyColumn(input.column(probeKeys[k]).slice(0, rows), probeDictionaries.get(k)));
        }
        keys = encoder.encodeProbe(keyColumns);
      }
      return new Cursor(keys, input, rows, probeColumns, buffers);
    } catch (RuntimeException | Error e) {
      buffers.release();
      throw e;
    }
  }

  /**
   * Walks a morsel's probe rows in order. Its pair buffers come from the thread's {@link PairBuffers} and go back on
   * {@link #close}.
   */
  public final class Cursor implements AutoCloseable {
    private final JoinKeys keys;
    private final ProbeInput probeColumn;
    private final int rows;
    private final int probeColumns;
    private int row;
    /** Table positions of the first matches of probe rows {@code firstsFrom ..}, a group at a time ({@link #first}). */
    private final int[] firsts = new int[PROBE_GROUP];
    /** Scratch of {@link JoinHashTable#firsts}. */
    private final JoinHashTable.ProbeScratch scratch = new JoinHashTable.ProbeScratch(PROBE_GROUP);
    private int firstsFrom = -PROBE_GROUP;
    private PairBuffers buffers;

    private Cursor(JoinKeys keys, ProbeInput probeColumn, int rows, int probeColumns,
        PairBuffers buffers) {
      this.buffers = buffers;
      this.keys = keys;
      this.probeColumn = probeColumn;
      this.rows = rows;
      this.probeColumns = probeColumns;
    }

    /**
     * The pairs of the next probe rows, stopping after the row whose candidates reach {@code maxPairs}; null once
     * every row was probed.
     */
    public Matches next(int maxPairs) {
      if (row >= rows) {
        return null;
      }
      if (kind == Kind.MARK_BUILD && !markConditions.stream().anyMatch(java.util.Objects::nonNull)) {
        markMatches();
        return Matches.NONE;
      }
      if (buffers == null) {
        throw new IllegalStateException("join probe cursor read after close");
      }
      int from = row;
      Pairs pairs = buffers.candidates.cleared(Math.min(rows - from, maxPairs));
      Kind kind = JoinProbe.this.kind.perProbeRow();
      boolean candidatesOnly = residual != null || kind == Kind.MARK_BUILD;
      for (; row < rows && pairs.count < maxPairs; row++) {
        int p = first(row);
        if (kind == Kind.MARK_BUILD) {
          for (; p >= 0; p = table.next(p)) {
            int b = table.row(p);
            if (!settled(b)) {  // a build row settled already needs no further test
              pairs.add(row, b);
            }
          }
        } else if (candidatesOnly || kind == Kind.INNER || kind == Kind.LEFT && p >= 0) {
          for (; p >= 0; p = table.next(p)) {
            pairs.add(row, table.row(p));
          }
        } else if (kind == Kind.LEFT || (kind == Kind.SEMI) == (p >= 0)) {
          pairs.add(row, -1);
        }
      }
      Matches out = candidatesOnly ? applyResidual(pairs, buffers, probeColumn, from, row, probeColumns)
          : pairs.matches();
      if (JoinProbe.this.kind.preservesBuild()) {
        markPaired(out);
      }
      return out;
    }

    /**
     * The table position of the first build row matching probe row {@code r} (-1: none or a NULL key); rows are asked
     * in order.
     */
    private int first(int r) {
      if (r >= firstsFrom + PROBE_GROUP) {
        firstsFrom = r;
        table.firsts(keys.keys(), keys.validity(), r, Math.min(rows, r + PROBE_GROUP), firsts, scratch);
      }
      return firsts[r - firstsFrom];
    }

    /** Hands the pair buffers back; the last {@link Matches} are not read after this. */
    @Override public void close() {
      if (buffers != null) {
        buffers.release();
        buffers = null;
      }
    }

    /** Marks the build rows that the remaining probe rows match (no condition: every key match counts). */
    private void markMatches() {
      for (; row < rows; row++) {
        for (int p = first(row); p >= 0; p = table.next(p)) {
          int b = table.row(p);
          for (boolean[] mark : marks) {
            mark[b] = true;
          }
        }
      }
    }
  }

  /** Whether no further match can change what becomes of a build row: every mark set, or a settling one. */
  private boolean settled(int buildRow) {
    boolean all = true;
    for (int m = 0; m < marks.length; m++) {
      if (marks[m][buildRow]) {
        if (settling != null && settling[m]) {
          return true;
        }
      } else {
        all = false;
      }
    }
    return all;
  }

  /** The {@code k}-th mark to test: the settling ones first, so that the rows they settle skip the others. */
  private int markOrder(int k) {
    if (settling == null) {
      return k;
    }
    int seen = 0;
    for (int pass = 0; pass < 2; pass++) {
      for (int m = 0; m < marks.length; m++) {
        if (settling[m] == (pass == 0) && seen++ == k) {
          return m;
        }
      }
    }
    throw new IllegalArgumentException("mark " + k + " of " + marks.length);
  }

  /** Marks the build rows of the pairs (a RIGHT or FULL probe: they are output already, joined). */
  private void markPaired(Matches m) {
    int[] buildRows = m.buildRows();
    for (int i = 0; i < m.count(); i++) {
      if (buildRows[i] >= 0) {
        marks[0][buildRows[i]] = true;
      }
    }
  }

  /**
   * Sets each mark of a MARK_BUILD probe on the build rows of the candidate pairs that meet its condition; a pair
   * whose build row has the mark already is not tested again.
   */
  private void markPassing(Pairs candidates, PairBuffers buffers, ProbeInput probeColumn,
      int probeColumns) {
    for (int k = 0; k < marks.length; k++) {
      int m = markOrder(k);
      boolean[] mark = marks[m];
      Pairs open = buffers.output.cleared(candidates.count);
      for (int i = 0; i < candidates.count; i++) {
        int b = candidates.build[i];
        if (!mark[b] && (k == 0 || !settled(b))) {  // a row a settling mark set just now is not tested again
          open.add(candidates.probe[i], b);
        }
      }
      Expr condition = markConditions.get(m);
      if (condition == null) {
        for (int i = 0; i < open.count; i++) {
          mark[open.build[i]] = true;
        }
        continue;
      }
      int n = open.count;
      if (n == 0) {
        continue;
      }
      int[] probeRows = open.probe;
      int[] buildRows = open.build;
      int[] passing = buffers.passing(n + 1);
      ColumnVector result = VectorEvaluator.evaluate(condition, c -> joinedColumn(c, probeColumn, probeColumns,
          probeRows, buildRows, n), n);
      int passed = VectorEvaluator.selectTrue(result, passing);
      for (int i = 0; i < passed; i++) {
        mark[buildRows[passing[i]]] = true;
      }
    }
  }

  /**
   * The joined columns of build rows {@code rows[from .. from+count-1]} (unmatched ones, {@link #markedBuildRows})
   * with NULL probe columns, over a probe side of {@code probeTypes}: a RIGHT or FULL probe's output for the build
   * rows no probe row matched. Only the columns in {@code live} (of the joined row) are made; the others are null.
   */
  public ColumnVector[] unmatchedBuildColumns(List<ExprType> probeTypes, BitSet live, int[] rows, int from, int count) {
    int probeColumns = probeTypes.size();
    ColumnVector[] out = new ColumnVector[probeColumns + buildTypes.size()];
    for (int c = 0; c < probeColumns; c++) {
      if (live.get(joinedProbe(c))) {
        out[joinedProbe(c)] = ColumnVector.constant(probeTypes.get(c), null, count);
      }
    }
    int[] ids = Arrays.copyOfRange(rows, from, from + count);
    for (int b = 0; b < buildTypes.size(); b++) {
      if (live.get(joinedBuild(b, probeColumns))) {
        out[joinedBuild(b, probeColumns)] = build().gather(b, ids, count);
      }
    }
    return out;
  }

  /** The candidates that pass the residual, turned into the kind's output pairs. */
  private Matches applyResidual(Pairs candidates, PairBuffers buffers, ProbeInput probeColumn,
      int from, int to, int probeColumns) {
    Kind kind = this.kind.perProbeRow();
    if (kind == Kind.MARK_BUILD) {
      markPassing(candidates, buffers, probeColumn, probeColumns);
      return Matches.NONE;
    }
    int n = candidates.count;
    int[] probeRows = candidates.probe;
    int[] buildRows = candidates.build;
    int[] passing = buffers.passing(n + 1);
    int passed = 0;
    if (n > 0) {
      ColumnVector result = VectorEvaluator.evaluate(residual, c -> joinedColumn(c, probeColumn, probeColumns,
          probeRows, buildRows, n), n);
      passed = VectorEvaluator.selectTrue(result, passing);
    }
    Pairs out = buffers.output.cleared(kind == Kind.INNER ? passed : to - from);
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

  private ColumnVector joinedColumn(int c, ProbeInput probeColumn, int probeColumns, int[] probeRows,
      int[] buildRows, int n) {
    int b = buildFirst ? c : c - probeColumns;
    if (b >= 0 && b < buildTypes.size()) {
      return build().gather(b, buildRows, n);
    }
    return probeColumn.gather(buildFirst ? c - buildTypes.size() : c, probeRows, n);
  }

  @Override public String toString() {
    return "JoinProbe(" + kind + ", keys " + Arrays.toString(probeKeys) + " = " + Arrays.toString(buildKeys) + ", build " + buildTypes
        + (buildFirst ? ", build first" : "") + (residual == null ? "" : ", residual " + residual)
        + (markCount() > 1 ? ", marks " + markConditions : "") + ")";
  }

  /** Pairs appended row by row, growing as needed; a cursor reuses them from one run of probe rows to the next. */
  static final class Pairs {
    int[] probe = new int[16];
    int[] build = new int[16];
    int count;

    /** Empties the pairs, making room for {@code capacity} of them. */
    Pairs cleared(int capacity) {
      if (probe.length < capacity) {
        probe = new int[capacity];
        build = new int[capacity];
      }
      count = 0;
      return this;
    }

    void add(int probeRow, int buildRow) {
      if (count == probe.length) {
        int pairs = count;
        MemoryGuard.require((long) pairs * 2 * 2 * Integer.BYTES,
            () -> "the matches of one morsel of a join probe (" + pairs + " pairs so far)");
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

    /** The larger of the two arrays' lengths, for deciding whether a pool keeps them. */
    int capacity() {
      return probe.length;
    }
  }
}
