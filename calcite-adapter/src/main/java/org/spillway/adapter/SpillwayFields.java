package org.spillway.adapter;

import org.apache.calcite.plan.hep.HepRelVertex;
import org.apache.calcite.plan.volcano.RelSubset;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.AggregateCall;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.core.Sort;
import org.apache.calcite.rel.rules.MultiJoin;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.util.ImmutableBitSet;
import org.spillway.gpu.vector.ExprType;
import org.spillway.storage.ColumnDef;
import org.spillway.storage.StoredTable;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** Derives the {@link SpillwayField}s of a relational expression whose inputs end in Spillway scans. */
final class SpillwayFields {
  private SpillwayFields() {}

  /**
   * The fields of the node's output, or empty if the node is not a tree of scans, filters, projects,
   * aggregates, sorts and joins over columns that Spillway can read.
   */
  static Optional<List<SpillwayField>> of(RelNode rel) {
    // In the planner's memo a node's input is a subset of equivalent nodes, any of which may give the fields, and
    // the memo has cycles (a set may contain a node over itself). Searching it depth first, path by path, is
    // exponential in the plan's depth; instead each reachable subset's fields are found once, inputs first,
    // repeated until no subset gains fields (a least fixpoint: only derivations without cycles count).
    List<RelSubset> subsets = new ArrayList<>();
    reachableSubsets(rel, new HashSet<>(), subsets);
    Map<RelSubset, List<SpillwayField>> known = new HashMap<>();
    for (boolean changed = !subsets.isEmpty(); changed; ) {
      changed = false;
      for (RelSubset subset : subsets) {
        if (!known.containsKey(subset)) {
          Optional<List<SpillwayField>> fields = ofMembers(subset, known);
          if (fields.isPresent()) {
            known.put(subset, fields.get());
            changed = true;
          }
        }
      }
    }
    return of(rel, known);
  }

  /** The subsets below {@code rel} (through every member of each), each after the subsets below it. */
  private static void reachableSubsets(RelNode rel, Set<RelSubset> visited, List<RelSubset> out) {
    if (rel instanceof RelSubset subset) {
      if (visited.add(subset)) {
        RelNode original = subset.getOriginal();
        if (original != null) {
          reachableSubsets(original, visited, out);
        }
        for (RelNode member : subset.getRelList()) {
          reachableSubsets(member, visited, out);
        }
        out.add(subset);
      }
    } else if (rel instanceof HepRelVertex vertex) {
      reachableSubsets(vertex.getCurrentRel(), visited, out);
    } else {
      rel.getInputs().forEach(input -> reachableSubsets(input, visited, out));
    }
  }

  /** The fields of the subset's first member (its original first) whose inputs' fields are known. */
  private static Optional<List<SpillwayField>> ofMembers(RelSubset subset, Map<RelSubset, List<SpillwayField>> known) {
    RelNode original = subset.getOriginal();
    Optional<List<SpillwayField>> fields = original == null ? Optional.empty() : of(original, known);
    for (int i = 0; fields.isEmpty() && i < subset.getRelList().size(); i++) {
      fields = of(subset.getRelList().get(i), known);
    }
    return fields;
  }

  private static Optional<List<SpillwayField>> of(RelNode rel, Map<RelSubset, List<SpillwayField>> known) {
    if (rel instanceof RelSubset subset) {
      return Optional.ofNullable(known.get(subset));
    }
    if (rel instanceof HepRelVertex vertex) {
      return of(vertex.getCurrentRel(), known);
    }
    if (rel instanceof SpillwayTableScan scan) {
      return Optional.of(ofScan(scan.spillwayTable(), scan.fields()));
    }
    if (rel instanceof Filter filter) {
      return of(filter.getInput(), known);
    }
    if (rel instanceof SpillwayMarkJoin markJoin) {
      return of(markJoin.getLeft(), known);  // its build side's rows, those the joins keep
    }
    if (rel instanceof Sort sort) {
      return of(sort.getInput(), known);
    }
    if (rel instanceof Project project) {
      return of(project.getInput(), known).map(input -> ofProject(project.getProjects(), input));
    }
    if (rel instanceof Aggregate aggregate) {
      return of(aggregate.getInput(), known).map(input -> ofAggregate(aggregate, input));
    }
    if (rel instanceof Join join) {
      Optional<List<SpillwayField>> left = of(join.getLeft(), known);
      Optional<List<SpillwayField>> right = left.isEmpty() ? left : of(join.getRight(), known);
      if (right.isEmpty()) {
        return Optional.empty();
      }
      // Fields only: whether this join runs in Spillway is its rules' decision. A join that none of them takes
      // may have an equivalent that one does, found later (TPC-H Q13's LEFT join, once its residual is pushed
      // into the right input), and the operators above must have been converted by then.
      return Optional.of(ofJoin(join, left.get(), right.get()));
    }
    if (rel instanceof MultiJoin multiJoin) {
      // The join-order phase's placeholder for the joins it orders (a semi join above them is converted before
      // they are): its row is its inputs' rows side by side, as the joins it becomes give it.
      List<SpillwayField> out = new ArrayList<>();
      for (RelNode input : multiJoin.getInputs()) {
        Optional<List<SpillwayField>> fields = of(input, known);
        if (fields.isEmpty()) {
          return Optional.empty();
        }
        out.addAll(fields.get());
      }
      return Optional.of(out);
    }
    return Optional.empty();
  }

  /** A join's output fields: the left input's, then the right's unless it is a semi- or anti-join. */
  static List<SpillwayField> ofJoin(Join join, List<SpillwayField> left, List<SpillwayField> right) {
    List<SpillwayField> out = new ArrayList<>(left);
    if (join.getJoinType().projectsRight()) {
      out.addAll(right);
    }
    return out;
  }

  /** The scans of a Spillway tree, left to right (every input followed). */
  static List<SpillwayTableScan> scansOf(RelNode rel) {
    List<SpillwayTableScan> out = new ArrayList<>();
    scansOf(rel, new HashSet<>(), out);
    return out;
  }

  private static void scansOf(RelNode rel, Set<RelNode> visited, List<SpillwayTableScan> out) {
    if (rel instanceof RelSubset subset) {
      RelNode member = subset.getBestOrOriginal();
      if (visited.add(subset) && member != null) {
        scansOf(member, visited, out);
      }
    } else if (rel instanceof HepRelVertex vertex) {
      scansOf(vertex.getCurrentRel(), visited, out);
    } else if (rel instanceof SpillwayTableScan scan) {
      out.add(scan);
    } else {
      rel.getInputs().forEach(input -> scansOf(input, visited, out));
    }
  }

  /** The scanned table behind a chain of single-input nodes, if any. */
  static Optional<SpillwayTableScan> scanOf(RelNode rel) {
    return scanOf(rel, new HashSet<>());
  }

  private static Optional<SpillwayTableScan> scanOf(RelNode rel, Set<RelNode> visited) {
    if (rel instanceof RelSubset subset) {
      if (!visited.add(subset)) {
        return Optional.empty();
      }
      RelNode original = subset.getOriginal();
      Optional<SpillwayTableScan> scan = original == null ? Optional.empty() : scanOf(original, visited);
      for (int i = 0; scan.isEmpty() && i < subset.getRelList().size(); i++) {
        scan = scanOf(subset.getRelList().get(i), visited);
      }
      return scan;
    }
    if (rel instanceof HepRelVertex vertex) {
      return scanOf(vertex.getCurrentRel(), visited);
    }
    if (rel instanceof SpillwayTableScan scan) {
      return Optional.of(scan);
    }
    return rel.getInputs().size() == 1 ? scanOf(rel.getInput(0), visited) : Optional.empty();
  }

  static List<SpillwayField> ofScan(SpillwayTable table, int[] fields) {
    StoredTable stored = table.stored();
    List<SpillwayField> out = new ArrayList<>();
    for (int field : fields) {
      ColumnDef column = stored.schema().column(field);
      ExprType type = switch (column.type().kind()) {
        case INTEGER -> ExprType.INT32;
        case BIGINT -> ExprType.INT64;
        case DOUBLE -> ExprType.FLOAT64;
        case DECIMAL -> ExprType.decimal(column.type().scale());
        case DATE -> ExprType.DATE;
        case CHAR, VARCHAR -> stored.isDictionaryEncoded(field) ? ExprType.STRING : ExprType.TEXT;
      };
      if (type.kind() == ExprType.Kind.STRING) {
        out.add(new SpillwayField(type, () -> table.stored().dictionary(field).orElseThrow(), null));
      } else {
        out.add(SpillwayField.of(type));
      }
    }
    return out;
  }

  private static List<SpillwayField> ofProject(List<RexNode> projects, List<SpillwayField> input) {
    List<SpillwayField> out = new ArrayList<>();
    for (RexNode e : projects) {
      if (e instanceof RexInputRef ref) {
        out.add(input.get(ref.getIndex()));
      } else if (e instanceof RexCall && (e.getType().getSqlTypeName() == SqlTypeName.DECIMAL
          || SqlTypeName.CHAR_TYPES.contains(e.getType().getSqlTypeName()))) {
        // a quotient's values are BigDecimals of any scale; a function of plain text is plain text
        out.add(SpillwayRexTranslator.fieldOf(e, input));
      } else {
        out.add(ofType(e.getType()));
      }
    }
    return out;
  }

  private static List<SpillwayField> ofAggregate(Aggregate aggregate, List<SpillwayField> input) {
    List<SpillwayField> out = new ArrayList<>();
    aggregate.getGroupSet().forEach(key -> out.add(input.get(key)));
    ImmutableBitSet wide = SpillwaySumWidth.wideSums(aggregate);
    for (int c = 0; c < aggregate.getAggCallList().size(); c++) {
      AggregateCall call = aggregate.getAggCallList().get(c);
      boolean keepsValues = (call.getAggregation().getKind() == SqlKind.MIN
          || call.getAggregation().getKind() == SqlKind.MAX) && call.getArgList().size() == 1;
      out.add(keepsValues ? input.get(call.getArgList().get(0))
          : wide.get(c) ? SpillwayField.of(ExprType.BIG_DECIMAL) : ofType(call.getType()));
    }
    return out;
  }

  /** The field of a value computed with the given SQL type. */
  static SpillwayField ofType(RelDataType type) {
    return switch (type.getSqlTypeName()) {
      case INTEGER -> SpillwayField.of(ExprType.INT32);
      case BIGINT -> SpillwayField.of(ExprType.INT64);
      case DOUBLE -> SpillwayField.of(ExprType.FLOAT64);
      case DATE -> SpillwayField.of(ExprType.DATE);
      case BOOLEAN -> SpillwayField.of(ExprType.BOOLEAN);
      case DECIMAL -> type.getScale() <= 18
          ? SpillwayField.of(ExprType.decimal(type.getScale()))
          : SpillwayField.unsupported("DECIMAL scale " + type.getScale() + " exceeds 18");
      default -> SpillwayField.unsupported("type " + type.getFullTypeString() + " is not columnar yet");
    };
  }
}
