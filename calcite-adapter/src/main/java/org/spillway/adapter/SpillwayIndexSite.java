package org.spillway.adapter;

import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.IntStream;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rex.RexInputRef;
import org.spillway.gpu.expr.Expr;
import org.spillway.gpu.plan.IndexJoinNode;
import org.spillway.gpu.plan.TableIndex;
import org.spillway.gpu.vector.ExprType;
import org.spillway.storage.IndexDefinition;
import org.spillway.storage.StoredTable;

/**
 * The side of a join that the windowed index join can look up instead of scanning: a scan of a table, perhaps under
 * a filter and a projection of its columns, whose one join key is a column of the table with an index (or several, of
 * other kinds). The index covers the whole table, so the filter is applied after the lookup to the row each probe key
 * finds. {@code columns} maps the side's output columns to the scan's.
 */
record SpillwayIndexSite(SpillwayTableScan scan, SpillwayFilter filter, int[] columns,
    List<IndexDefinition> indexes) {
  /** Key types whose values the index and the probe compare as the same longs. */
  private static final Set<ExprType.Kind> INTEGRAL = Set.of(ExprType.Kind.INT32, ExprType.Kind.INT64);

  /** A side's site, or why the side has none. */
  record Found(SpillwayIndexSite site, String whyNot) {
    static Found not(String why) {
      return new Found(null, why);
    }
  }

  /**
   * The site of {@code side}, joined on its output columns {@code keys} (of {@code keyFields}) to probe keys of
   * {@code probeFields}; {@code name} says which side it is in the reason there is none.
   */
  static Found find(String name, RelNode side, int[] keys, List<SpillwayField> keyFields,
      List<SpillwayField> probeFields) {
    RelNode rel = side.stripped();
    int[] columns = null;
    if (rel instanceof SpillwayProject project) {
      columns = new int[project.getProjects().size()];
      for (int c = 0; c < columns.length; c++) {
        if (!(project.getProjects().get(c) instanceof RexInputRef ref)) {
          return Found.not("the " + name + " side computes " + project.getProjects().get(c)
              + ", an index join reads a table's columns");
        }
        columns[c] = ref.getIndex();
      }
      rel = project.getInput().stripped();
    }
    SpillwayFilter filter = null;
    if (rel instanceof SpillwayFilter f) {
      filter = f;
      rel = f.getInput().stripped();
    }
    if (!(rel instanceof SpillwayTableScan scan)) {
      return Found.not("the " + name + " side is not a table scan (or a filter over one)");
    }
    if (keys.length != 1) {
      return Found.not("the " + name + " side joins on " + keys.length + " keys, an index is over one column");
    }
    ExprType.Kind key = keyFields.get(0).type().kind();
    ExprType.Kind probe = probeFields.get(0).type().kind();
    if (!(INTEGRAL.contains(key) && INTEGRAL.contains(probe) || key == ExprType.Kind.DATE && probe == key)) {
      return Found.not("the keys are " + probe + " against " + key + ", an index join compares integers or dates");
    }
    StoredTable table = scan.spillwayTable().stored();
    if (columns == null) {
      columns = IntStream.range(0, scan.getRowType().getFieldCount()).toArray();
    }
    String column = table.schema().column(scan.fields()[columns[keys[0]]]).name();
    List<IndexDefinition> indexes = scan.spillwayTable().catalog().indexes(table.name()).stream()
        .filter(index -> index.column().equalsIgnoreCase(column)).toList();
    if (indexes.isEmpty()) {
      return Found.not("table " + table.name() + " has no index on " + column + " (CREATE INDEX)");
    }
    return new Found(new SpillwayIndexSite(scan, filter, columns, indexes), null);
  }

  SpillwayTable table() {
    return scan.spillwayTable();
  }

  /** Rows of the indexed table: keys of its index. */
  double rows() {
    return table().stored().rowCount();
  }

  /** The site's index of {@code kind} (case-insensitive). */
  IndexDefinition index(String kind) {
    return indexes.stream().filter(index -> index.kind().equalsIgnoreCase(kind)).findFirst().orElseThrow(() ->
        new IllegalStateException("no index of kind " + kind + " among " + indexes));
  }

  /** The indexed side as the index join node reads it, through the index {@code index} supplies. */
  IndexJoinNode.IndexedSide runtime(Supplier<TableIndex> index) {
    int[] scanned = scan.fields();
    int[] fields = Arrays.stream(columns).map(c -> scanned[c]).toArray();
    return new IndexJoinNode.IndexedSide(table(), fields, types(fields), index, filterExpr(), scanned,
        types(scanned));
  }

  private List<ExprType> types(int[] fields) {
    return SpillwayFields.ofScan(table(), fields).stream().map(SpillwayField::type).toList();
  }

  /** The filter over the scan's columns, applied after the lookup, or null. */
  private Expr filterExpr() {
    if (filter == null) {
      return null;
    }
    try {
      return SpillwayRexTranslator.translate(filter.getCondition(), SpillwayExplain.inputFields(filter));
    } catch (SpillwayUnsupportedException e) {
      throw new IllegalStateException("filter passed planning but cannot be translated: " + e.getMessage(), e);
    }
  }
}
