package org.spillway.gpu.pipeline;

import org.spillway.gpu.expr.Expr;
import org.spillway.gpu.expr.VectorEvaluator;
import org.spillway.gpu.join.hash.JoinProbe;
import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.function.Consumer;
import org.apache.arrow.vector.FieldVector;

/**
 * A slice of rows flowing through a pipeline on one thread. Columns that come straight from the Arrow
 * source are loaded only when an operator first reads them, and then only for the rows that survived the
 * filters before (late materialization: a selective filter spares the loads of the other columns).
 */
public final class Morsel {
  private final FieldVector[] sources;
  private final List<ExprType> sourceTypes;
  private final int offset;
  /** Surviving rows relative to offset, or null while all rows survive. */
  private int[] selection;
  private int rows;
  private ColumnVector[] columns;
  /** Per column: the source column it still lazily refers to, or -1 once it is held in columns. */
  private int[] sourceOf;
  /** The morsel's place in its pipeline's input ({@link #index}), or -1. */
  private int index = -1;

  private Morsel(FieldVector[] sources, List<ExprType> sourceTypes, int offset, int rows,
      ColumnVector[] columns, int[] sourceOf) {
    this.sources = sources;
    this.sourceTypes = sourceTypes;
    this.offset = offset;
    this.rows = rows;
    this.columns = columns;
    this.sourceOf = sourceOf;
  }

  /** Rows {@code offset .. offset + rows - 1} of the source vectors, none loaded yet. */
  public static Morsel ofSource(FieldVector[] sources, List<ExprType> types, int offset, int rows) {
    int[] sourceOf = new int[sources.length];
    for (int i = 0; i < sourceOf.length; i++) {
      sourceOf[i] = i;
    }
    return new Morsel(sources, types, offset, rows, new ColumnVector[sources.length], sourceOf);
  }

  /** Rows already held in vectors. */
  public static Morsel ofColumns(ColumnVector[] columns, int rows) {
    int[] sourceOf = new int[columns.length];
    Arrays.fill(sourceOf, -1);
    return new Morsel(new FieldVector[0], List.of(), 0, rows, columns.clone(), sourceOf);
  }

  public int rows() {
    return rows;
  }

  /**
   * The place of the morsel's input rows in its pipeline's input: morsel {@code i} holds rows that come before
   * those of morsel {@code i + 1}, and the parts a join probe cuts from a morsel keep its index (and come in
   * order). A sink that needs the input's order (an aggregation over clustered keys) reads it; -1 if not numbered.
   */
  public int index() {
    return index;
  }

  /** Numbers the morsel as the {@code index}-th of its pipeline's input ({@link #index()}); returns it. */
  public Morsel numbered(int index) {
    this.index = index;
    return this;
  }

  int columnCount() {
    return columns.length;
  }

  /** A column for the current rows, loading it from the source on first use. */
  public ColumnVector column(int i) {
    if (columns[i] == null) {
      int s = sourceOf[i];
      if (s < 0) {
        throw new IllegalStateException("column " + i + " of the morsel was left out as unread, yet is read");
      }
      columns[i] = ArrowColumnLoader.load(sources[s], sourceTypes.get(s), offset, selection, rows);
      sourceOf[i] = -1;
    }
    return columns[i];
  }

  /**
   * Whether column {@code i} may be NULL in a row of the morsel (false: surely not), without loading it: a COUNT of
   * a column without NULLs counts rows.
   */
  public boolean mayHaveNulls(int i) {
    if (columns[i] != null) {
      return columns[i].nulls != null;
    }
    return ArrowColumnLoader.mayHaveNulls(source(i), offset, selection, rows);
  }

  /** The column if it is held in a vector, else null (still in the source, or left out as unread). */
  ColumnVector loaded(int i) {
    return columns[i];
  }

  /** The Arrow vector a column not loaded yet is read from; fails for a column left out as unread. */
  FieldVector source(int i) {
    if (sourceOf[i] < 0) {
      throw new IllegalStateException("column " + i + " of the morsel was left out as unread, yet is read");
    }
    return sources[sourceOf[i]];
  }

  /** The type a column not loaded yet is read as. */
  ExprType sourceType(int i) {
    source(i);
    return sourceTypes.get(sourceOf[i]);
  }

  /** The first source row of the morsel; its rows are {@code offset() + selection()[i]}. */
  int offset() {
    return offset;
  }

  /** The surviving source rows relative to {@link #offset()}, or null while all rows survive. */
  int[] selection() {
    return selection;
  }

  /**
   * Keeps the rows where the condition is TRUE, selecting them as {@link SelectionFilter} does: the conjuncts
   * of an AND refine one selection vector in turn, each over the survivors of the previous ones, and read columns
   * not loaded yet straight from the source at those rows. The loaded columns are gathered once, at the end.
   */
  public void filter(Expr condition) {
    if (rows == 0) {
      return;
    }
    SelectionScratch scratch = SelectionScratch.take(rows);
    try {
      int[] positions = scratch.positions;
      for (int i = 0; i < rows; i++) {
        positions[i] = i;
      }
      int count = SelectionFilter.select(condition, this, scratch, rows);
      if (count < rows) {
        keep(positions, count);
      }
    } finally {
      scratch.release();
    }
  }

  /** Keeps the rows at {@code positions[0 .. count-1]} (ascending); copies what it keeps of a scratch buffer. */
  private void keep(int[] positions, int count) {
    for (int i = 0; i < columns.length; i++) {
      if (columns[i] != null) {
        columns[i] = columns[i].gather(positions, count);
      }
    }
    if (sources.length > 0) {
      if (selection == null) {
        selection = Arrays.copyOf(positions, count);
      } else {
        // In place: positions ascend, so position i is at least i and is read before any write reaches it. The
        // selection is the morsel's own (made here or by the probe that cut the morsel).
        for (int i = 0; i < count; i++) {
          selection[i] = selection[positions[i]];
        }
      }
    }
    rows = count;
  }

  /**
   * Replaces the columns by the expressions' values; bare column references stay lazy. Over no rows nothing
   * is evaluated: the columns become empty ones of the expressions' types.
   */
  public void project(List<Expr> expressions) {
    ColumnVector[] next = new ColumnVector[expressions.size()];
    int[] nextSource = new int[expressions.size()];
    for (int i = 0; i < next.length; i++) {
      Expr e = expressions.get(i);
      nextSource[i] = -1;
      if (e instanceof Expr.Column ref && columns[ref.index()] == null) {
        nextSource[i] = sourceOf[ref.index()];
      } else if (rows == 0) {
        next[i] = ColumnVector.constant(e.type(), null, 0);
      } else {
        next[i] = VectorEvaluator.evaluate(e, this::column, rows);
      }
    }
    columns = next;
    sourceOf = nextSource;
  }

  /**
   * Joins the rows with a build side ({@link JoinProbe}) and hands the joined rows on as morsels of at most about
   * {@code maxRows} rows: probe columns are gathered at the matched positions (columns still in the source stay
   * lazy, under the composed selection), build columns are gathered from the build side when {@code live} (the
   * columns read after this stage) holds them, else left out. A MARK_BUILD probe only marks and hands nothing on.
   */
  public void probe(JoinProbe probe, BitSet live, int maxRows, Consumer<Morsel> out) {
    boolean marks = probe.kind() == JoinProbe.Kind.MARK_BUILD;
    try (JoinProbe.Cursor cursor = probe.cursor(new ProbeColumns(), rows, columns.length)) {
      for (JoinProbe.Matches m = cursor.next(maxRows); m != null; m = cursor.next(maxRows)) {
        if (!marks) {
          out.accept(joined(probe, live, m));
        }
      }
    }
  }

  /** The morsel's columns as a probe reads them: keys still in the source are read without being kept. */
  private final class ProbeColumns implements JoinProbe.ProbeInput {
    @Override public ColumnVector column(int c) {
      return Morsel.this.column(c);
    }

    @Override public boolean inSource(int c) {
      return columns[c] == null && sourceOf[c] >= 0 && sourceTypes.get(sourceOf[c]).isLong();
    }

    @Override public boolean readLongs(int c, long[] values, boolean[] nulls) {
      FieldVector vector = sources[sourceOf[c]];
      boolean anyNull = ArrowColumnLoader.readNulls(vector, offset, selection, rows, nulls);
      ArrowColumnLoader.readLongs(vector, sourceTypes.get(sourceOf[c]), offset, selection, rows, values,
          anyNull ? nulls : null);
      return anyNull;
    }

    @Override public ColumnVector gather(int c, int[] at, int n) {
      if (columns[c] != null || sourceOf[c] < 0) {
        return Morsel.this.column(c).gather(at, n);
      }
      int[] composed = new int[n];
      for (int i = 0; i < n; i++) {
        composed[i] = selection == null ? at[i] : selection[at[i]];
      }
      return ArrowColumnLoader.load(sources[sourceOf[c]], sourceTypes.get(sourceOf[c]), offset, composed, n);
    }
  }

  private Morsel joined(JoinProbe probe, BitSet live, JoinProbe.Matches m) {
    int probeColumns = columns.length;
    int n = m.count();
    int[] at = m.probeRows();
    boolean projectsBuild = probe.kind().projectsBuild();
    int width = projectsBuild ? probeColumns + probe.buildTypes().size() : probeColumns;
    ColumnVector[] next = new ColumnVector[width];
    int[] nextSource = new int[width];
    Arrays.fill(nextSource, -1);
    for (int c = 0; c < probeColumns; c++) {
      int to = projectsBuild ? probe.joinedProbe(c) : c;
      if (!live.get(to)) {
        continue;
      }
      if (columns[c] != null) {
        next[to] = columns[c].gather(at, n);
      } else {
        nextSource[to] = sourceOf[c];
      }
    }
    if (projectsBuild) {
      for (int b = 0; b < probe.buildTypes().size(); b++) {
        int to = probe.joinedBuild(b, probeColumns);
        if (live.get(to)) {
          next[to] = probe.build().gather(b, m.buildRows(), n);
        }
      }
    }
    int[] composed = null;
    if (sources.length > 0) {
      composed = new int[n];
      for (int i = 0; i < n; i++) {
        composed[i] = selection == null ? at[i] : selection[at[i]];
      }
    }
    Morsel joined = new Morsel(sources, sourceTypes, offset, n, next, nextSource);
    joined.selection = composed;
    joined.index = index;
    return joined;
  }

  /** Every column, loaded; a column left out as unread stays null. */
  public ColumnVector[] materialize() {
    for (int i = 0; i < columns.length; i++) {
      if (columns[i] != null || sourceOf[i] >= 0) {
        column(i);
      }
    }
    return columns.clone();
  }
}
