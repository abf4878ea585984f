package org.spillway.tests.random;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.Random;
import java.util.Set;
import org.spillway.tests.random.RandomExpressions.Bound;
import org.spillway.tests.random.RandomExpressions.Sql;
import org.spillway.tests.random.RandomQuery.Feature;
import org.spillway.tests.random.RandomTables.Column;
import org.spillway.tests.random.RandomTables.ForeignKey;
import org.spillway.tests.random.RandomTables.Kind;
import org.spillway.tests.random.RandomTables.Table;

/**
 * Random SQL over the TPC-H tables: filters and projections, inner and left joins along foreign keys, semi and
 * anti joins (IN, EXISTS, NOT IN over values that may be NULL, NOT EXISTS), scalar subqueries (plain and
 * correlated), UNION [ALL], INTERSECT, EXCEPT, GROUP BY with HAVING, global aggregates, ORDER BY over every
 * output column (a total order, so that LIMIT and OFFSET pick the same rows in any engine) and integer
 * arithmetic near overflow. Literals come from the edges of the data, so filters often select nothing.
 * The same seed always gives the same query.
 */
public final class RandomQueryGenerator {
  private final long seed;
  private final Random random;
  private final RandomExpressions exprs;
  private final Set<Feature> features;
  private int aliases;

  private RandomQueryGenerator(long seed) {
    this.seed = seed;
    this.random = new Random(seed);
    this.exprs = new RandomExpressions(random);
    this.features = exprs.features;
  }

  /** The query of {@code seed}. */
  static RandomQuery generate(long seed) {
    return new RandomQueryGenerator(seed).query();
  }

  private RandomQuery query() {
    int shape = random.nextInt(10);
    List<Sql> outputs = new ArrayList<>();
    String body = switch (shape) {
      case 0, 1 -> selectFilter(outputs);
      case 2, 3, 4 -> aggregate(outputs);
      case 5, 6 -> subquery(outputs);
      case 7 -> setOperation(outputs);
      case 8 -> correlatedScalar(outputs);
      default -> overflow(outputs);
    };
    List<String> labels = new ArrayList<>();
    for (int i = 0; i < outputs.size(); i++) {
      labels.add("c" + i);
    }
    // AVG is a DOUBLE whose last bits depend on the order of summation: ordering by it could order near-ties
    // differently in the two engines.
    boolean ordered = !features.contains(Feature.AVG) && exprs.chance(45);
    if (!ordered) {
      return new RandomQuery(seed, body, List.of(), OptionalLong.empty(), false, features);
    }
    features.add(Feature.ORDER_BY);
    List<String> keys = new ArrayList<>();
    for (String label : labels) {
      keys.add(label + (exprs.chance(50) ? " ASC" : " DESC") + (exprs.chance(50) ? " NULLS FIRST" : " NULLS LAST"));
    }
    StringBuilder sql = new StringBuilder(body).append(" ORDER BY ").append(String.join(", ", keys));
    OptionalLong limit = OptionalLong.empty();
    boolean offset = false;
    if (exprs.chance(60)) {
      features.add(Feature.LIMIT);
      limit = OptionalLong.of(exprs.between(0, 30));
      sql.append(" LIMIT ").append(limit.getAsLong());
      if (exprs.chance(40)) {
        int skipped = exprs.between(0, 20);
        sql.append(" OFFSET ").append(skipped);
        offset = skipped > 0;
      }
    }
    return new RandomQuery(seed, sql.toString(), labels, limit, offset, features);
  }

  /** SELECT expressions FROM a join of 1-3 tables WHERE a condition. */
  private String selectFilter(List<Sql> outputs) {
    List<Bound> scope = new ArrayList<>();
    String from = from(scope);
    for (int i = exprs.between(1, 4); i > 0; i--) {
      outputs.add(output(scope));
    }
    return "SELECT " + selectList(outputs) + " FROM " + from + where(scope);
  }

  /** GROUP BY 0-2 expressions with 1-3 aggregates and an optional HAVING, or a global aggregate. */
  private String aggregate(List<Sql> outputs) {
    List<Bound> scope = new ArrayList<>();
    String from = from(scope);
    List<String> groups = new ArrayList<>();
    for (int i = exprs.between(0, 2); i > 0; i--) {
      Sql key = exprs.chance(70) ? plainColumn(scope) : exprs.value(scope, Kind.INT, 1);
      if (key.text().matches("-?[0-9]+")) {
        key = plainColumn(scope);  // DuckDB reads GROUP BY 2 as the second output column
      }
      outputs.add(key);
      groups.add(key.text());
    }
    for (int i = exprs.between(1, 3); i > 0; i--) {
      outputs.add(exprs.aggregate(scope, true));
    }
    String sql = "SELECT " + selectList(outputs) + " FROM " + from + where(scope);
    if (!groups.isEmpty()) {
      sql += " GROUP BY " + String.join(", ", groups);
      if (exprs.chance(40)) {
        Sql having = exprs.aggregate(scope, false);
        String right = having.kind() == Kind.INT ? String.valueOf(exprs.between(0, 30))
            : exprs.literal(scope, having.kind());
        sql += " HAVING " + having.text() + " " + exprs.pick(List.of("<", ">", ">=", "<>")) + " " + right;
      }
    }
    return sql;
  }

  /** Semi and anti joins: [NOT] EXISTS along a foreign key, [NOT] IN over a subquery whose values may be NULL. */
  private String subquery(List<Sql> outputs) {
    List<Bound> scope = new ArrayList<>();
    String from = from(scope);
    for (int i = exprs.between(1, 3); i > 0; i--) {
      outputs.add(output(scope));
    }
    List<String> conditions = new ArrayList<>();
    if (exprs.chance(50)) {
      conditions.add(exprs.condition(scope, 1));
    }
    Bound outer = exprs.pick(scope);
    List<ForeignKey> edges = edgesOf(outer.table());
    ForeignKey edge = exprs.pick(edges);
    boolean outerIsChild = edge.child().equals(outer.table().name());
    Table inner = RandomTables.table(outerIsChild ? edge.parent() : edge.child());
    Bound innerBound = new Bound(nextAlias(), inner, false);
    List<Bound> innerScope = List.of(innerBound);
    String outerKey = outer.alias() + "." + (outerIsChild ? edge.foreignKey() : edge.primaryKey());
    String innerKey = innerBound.alias() + "." + (outerIsChild ? edge.primaryKey() : edge.foreignKey());
    String innerWhere = exprs.chance(70) ? exprs.condition(innerScope, 1) : null;
    String not = exprs.chance(50) ? "NOT " : "";
    if (exprs.chance(50)) {
      conditions.add(not + "EXISTS (SELECT 1 FROM " + inner.name() + " " + innerBound.alias() + " WHERE " + innerKey
          + " = " + outerKey + secondKey(outer, innerBound) + (innerWhere == null ? "" : " AND " + innerWhere) + ")");
    } else {
      // A CASE without ELSE puts NULLs into the subquery: NOT IN is then UNKNOWN wherever no value matches.
      String value = exprs.chance(35)
          ? "CASE WHEN " + exprs.condition(innerScope, 0) + " THEN " + innerKey + " END" : innerKey;
      conditions.add(outerKey + " " + not + "IN (SELECT " + value + " FROM " + inner.name() + " " + innerBound.alias()
          + (innerWhere == null ? "" : " WHERE " + innerWhere) + ")");
    }
    if (exprs.chance(30)) {
      // An uncorrelated scalar subquery; over an empty input its aggregate is NULL and the comparison UNKNOWN.
      Kind kind = exprs.pick(List.of(Kind.INT, Kind.DECIMAL));
      Sql left = exprs.column(scope, kind, true);
      if (left != null) {
        Bound other = new Bound(nextAlias(), exprs.pick(RandomTables.TABLES), false);
        Sql right = exprs.column(List.of(other), kind, true);
        if (right != null) {
          conditions.add(left.text() + " " + exprs.pick(List.of("<", ">=", "=")) + " (SELECT "
              + exprs.pick(List.of("MIN", "MAX")) + "(" + right.text() + ") FROM " + other.table().name() + " "
              + other.alias() + " WHERE " + exprs.condition(List.of(other), 1) + ")");
        }
      }
    }
    return "SELECT " + selectList(outputs) + " FROM " + from + " WHERE " + String.join(" AND ", conditions);
  }

  /** A correlated scalar subquery along a foreign key from parent to child, in the select list or the WHERE. */
  private String correlatedScalar(List<Sql> outputs) {
    ForeignKey edge = exprs.pick(RandomTables.FOREIGN_KEYS);
    Bound parent = new Bound(nextAlias(), RandomTables.table(edge.parent()), false);
    Bound child = new Bound(nextAlias(), RandomTables.table(edge.child()), false);
    List<Bound> outerScope = List.of(parent);
    outputs.add(plainColumn(outerScope));
    Sql aggregate = exprs.aggregate(List.of(child), false);
    String scalar = "(SELECT " + aggregate.text() + " FROM " + child.table().name() + " " + child.alias() + " WHERE "
        + child.alias() + "." + edge.foreignKey() + " = " + parent.alias() + "." + edge.primaryKey()
        + (exprs.chance(60) ? " AND " + exprs.condition(List.of(child), 1) : "") + ")";
    String from = parent.table().name() + " " + parent.alias();
    if (exprs.chance(50)) {
      outputs.add(new Sql(scalar, aggregate.kind()));
      return "SELECT " + selectList(outputs) + " FROM " + from + where(outerScope);
    }
    String right = aggregate.kind() == Kind.INT ? String.valueOf(exprs.between(0, 5))
        : exprs.literal(List.of(child), aggregate.kind());
    return "SELECT " + selectList(outputs) + " FROM " + from + " WHERE " + scalar + " "
        + exprs.pick(List.of("<", ">", "=", "<>")) + " " + right;
  }

  /** UNION [ALL], INTERSECT or EXCEPT of two selections of the same expressions under different conditions. */
  private String setOperation(List<Sql> outputs) {
    Table table = exprs.pick(RandomTables.TABLES);
    Bound bound = new Bound(nextAlias(), table, false);
    List<Bound> scope = List.of(bound);
    for (int i = exprs.between(1, 3); i > 0; i--) {
      outputs.add(exprs.chance(70) ? plainColumn(scope)
          : exprs.value(scope, exprs.pick(List.of(Kind.INT, Kind.DECIMAL)), 1));
    }
    String operator = exprs.pick(List.of("UNION", "UNION ALL", "INTERSECT", "EXCEPT"));
    if (operator.equals("UNION")) {
      features.add(Feature.UNION_DISTINCT);
    }
    String select = "SELECT " + selectList(outputs) + " FROM " + table.name() + " " + bound.alias() + " WHERE ";
    return select + exprs.condition(scope, 2) + " " + operator + " " + select + exprs.condition(scope, 2);
  }

  /** Integer arithmetic near overflow, in the select list and maybe the WHERE. */
  private String overflow(List<Sql> outputs) {
    List<Bound> scope = new ArrayList<>();
    String from = from(scope);
    outputs.add(plainColumn(scope));
    boolean summed = exprs.chance(30);
    Sql overflowing = exprs.overflowing(scope, summed);
    if (summed) {
      features.add(Feature.SUM_OF_INTEGER);
      outputs.set(0, new Sql("COUNT(*)", Kind.INT));
      outputs.add(new Sql("SUM(" + overflowing.text() + ")", Kind.INT));
    } else {
      outputs.add(overflowing);
    }
    return "SELECT " + selectList(outputs) + " FROM " + from + where(scope);
  }

  /** A table, maybe joined (inner or left) along foreign keys to one or two more; fills {@code scope}. */
  private String from(List<Bound> scope) {
    Table first = exprs.pick(RandomTables.TABLES);
    scope.add(new Bound(nextAlias(), first, false));
    StringBuilder from = new StringBuilder(first.name()).append(' ').append(scope.get(0).alias());
    for (int joins = exprs.pick(List.of(0, 0, 1, 1, 2)); joins > 0; joins--) {
      Bound from0 = exprs.pick(scope);
      ForeignKey edge = exprs.pick(edgesOf(from0.table()));
      boolean fromChild = edge.child().equals(from0.table().name());
      Table next = RandomTables.table(fromChild ? edge.parent() : edge.child());
      if (growsTooLarge(scope, next)) {
        continue;
      }
      boolean left = exprs.chance(35);
      Bound bound = new Bound(nextAlias(), next, left || from0.nullable());
      String condition = from0.alias() + "." + (fromChild ? edge.foreignKey() : edge.primaryKey()) + " = "
          + bound.alias() + "." + (fromChild ? edge.primaryKey() : edge.foreignKey());
      condition += secondKey(from0, bound);
      if (exprs.chance(20)) {
        condition += " AND " + exprs.condition(List.of(bound), 0);
      }
      from.append(left ? " LEFT JOIN " : " JOIN ").append(next.name()).append(' ').append(bound.alias())
          .append(" ON ").append(condition);
      scope.add(bound);
    }
    return from.toString();
  }

  /**
   * Now and then a second equality of a column of {@code a} with one of the same kind of {@code b}, so that
   * joins have keys of two columns and of every kind (text, decimals, dates): " AND a.x = b.y", or "".
   */
  private String secondKey(Bound a, Bound b) {
    if (!exprs.chance(30)) {
      return "";
    }
    Column x = exprs.pick(a.table().columns().stream().filter(c -> !c.key()).toList());
    List<Column> sameKind = b.table().columns().stream().filter(c -> !c.key() && c.kind() == x.kind()).toList();
    if (sameKind.isEmpty()) {
      return "";
    }
    features.add(Feature.TWO_COLUMN_JOIN_KEY);
    return " AND " + a.alias() + "." + x.name() + " = " + b.alias() + "." + exprs.pick(sameKind).name();
  }

  /** Each table joins once: a second path to lineitem (or a table joined to itself) multiplies rows. */
  private static boolean growsTooLarge(List<Bound> scope, Table next) {
    return scope.stream().anyMatch(b -> b.table().name().equals(next.name()));
  }

  private static List<ForeignKey> edgesOf(Table table) {
    return RandomTables.FOREIGN_KEYS.stream()
        .filter(e -> e.child().equals(table.name()) || e.parent().equals(table.name())).toList();
  }

  private String where(List<Bound> scope) {
    return exprs.chance(80) ? " WHERE " + exprs.condition(scope, 2) : "";
  }

  private Sql output(List<Bound> scope) {
    return exprs.chance(50) ? plainColumn(scope) : exprs.value(scope, exprs.pick(List.of(Kind.values())), 2);
  }

  private Sql plainColumn(List<Bound> scope) {
    Bound bound = exprs.pick(scope);
    RandomTables.Column column = exprs.pick(bound.table().columns());
    return new Sql(bound.alias() + "." + column.name(), column.kind());
  }

  private static String selectList(List<Sql> outputs) {
    List<String> items = new ArrayList<>();
    for (int i = 0; i < outputs.size(); i++) {
      items.add(outputs.get(i).text() + " AS c" + i);
    }
    return String.join(", ", items);
  }

  private String nextAlias() {
    return "t" + aliases++;
  }
}
