package org.spillway.tests.random;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.spillway.tests.random.RandomQuery.Feature;
import org.spillway.tests.random.RandomTables.Column;
import org.spillway.tests.random.RandomTables.Kind;
import org.spillway.tests.random.RandomTables.Table;

/**
 * Random typed expressions over the tables in scope: arithmetic, CASE, NULLIF and COALESCE (which make NULLs
 * where TPC-H has none), comparisons, BETWEEN, IN lists, LIKE, IS NULL and AND/OR/NOT. Only SQL whose meaning
 * DuckDB and Calcite share is written: no integer division, no text literals of different lengths in one CASE
 * (Calcite pads them to CHAR), integers typed alike in both engines (see {@link Kind#INT}).
 */
final class RandomExpressions {
  /** A table in scope under an alias; {@code nullable} when it is the optional side of a LEFT JOIN. */
  record Bound(String alias, Table table, boolean nullable) {
  }

  /** An expression's SQL text and kind. */
  record Sql(String text, Kind kind) {
  }

  private final Random random;
  final Set<Feature> features = EnumSet.noneOf(Feature.class);

  RandomExpressions(Random random) {
    this.random = random;
  }

  boolean chance(int percent) {
    return random.nextInt(100) < percent;
  }

  <T> T pick(List<T> values) {
    return values.get(random.nextInt(values.size()));
  }

  int between(int low, int high) {
    return low + random.nextInt(high - low + 1);
  }

  /** A column of {@code kind} in scope, with its alias, or null if there is none. */
  Sql column(List<Bound> scope, Kind kind, boolean forArithmetic) {
    List<Sql> candidates = new ArrayList<>();
    for (Bound b : scope) {
      for (Column c : b.table().columns()) {
        if (c.kind() == kind) {
          candidates.add(new Sql(forArithmetic ? c.read(b.alias()) : b.alias() + "." + c.name(), kind));
        }
      }
    }
    return candidates.isEmpty() ? null : pick(candidates);
  }

  /** A literal of {@code kind}, taken from the ranges of the columns of that kind in scope. */
  String literal(List<Bound> scope, Kind kind) {
    List<String> samples = new ArrayList<>();
    for (Bound b : scope) {
      for (Column c : b.table().columns()) {
        if (c.kind() == kind) {
          samples.addAll(c.samples());
        }
      }
    }
    if (samples.isEmpty()) {
      return switch (kind) {
        case INT -> String.valueOf(between(-2, 100));
        case DECIMAL -> between(-100, 10000) + "." + between(10, 99);
        case DATE -> "DATE '1995-0" + between(1, 9) + "-15'";
        case TEXT -> "'" + (char) ('A' + random.nextInt(26)) + "'";
      };
    }
    return pick(samples);
  }

  /** A value of {@code kind} (INT or DECIMAL: arithmetic; DATE and TEXT: a column, maybe made NULL). */
  Sql value(List<Bound> scope, Kind kind, int depth) {
    Sql column = column(scope, kind, true);
    if (kind == Kind.TEXT && column == null) {
      // Calcite types a text literal CHAR(n) and pads it to the longest in a CASE; DuckDB does not pad.
      return new Sql("CAST(" + literal(scope, kind) + " AS VARCHAR(30))", kind);
    }
    if (depth <= 0 || column == null || chance(30)) {
      return column != null && (kind == Kind.TEXT || !chance(15)) ? column : new Sql(literal(scope, kind), kind);
    }
    int choice = random.nextInt(kind == Kind.INT || kind == Kind.DECIMAL ? 7 : 3);
    return switch (choice) {
      case 0 -> new Sql("CASE WHEN " + condition(scope, depth - 1) + " THEN " + value(scope, kind, depth - 1).text()
          + (chance(30) ? "" : " ELSE " + value(scope, kind, depth - 1).text()) + " END", kind);
      case 1 -> new Sql("NULLIF(" + value(scope, kind, depth - 1).text() + ", " + literal(scope, kind) + ")", kind);
      case 2 -> new Sql("COALESCE(" + value(scope, kind, depth - 1).text() + ", " + literal(scope, kind) + ")", kind);
      case 3, 4 -> new Sql("(" + value(scope, kind, depth - 1).text() + (chance(50) ? " + " : " - ")
          + value(scope, kind, depth - 1).text() + ")", kind);
      case 5 -> new Sql("(" + value(scope, kind, depth - 1).text() + " * " + between(-3, 12) + ")", kind);
      default -> kind == Kind.DECIMAL
          ? new Sql("(" + value(scope, Kind.DECIMAL, depth - 1).text() + " + "
              + value(scope, Kind.INT, depth - 1).text()
              + ")", kind)
          : new Sql("EXTRACT(YEAR FROM " + value(scope, Kind.DATE, depth - 1).text() + ")", kind);
    };
  }

  /**
   * Arithmetic near the end of its type: INTEGER (a key read as INTEGER, or a small column, plus or times a
   * constant that passes 2^31 for some rows) or BIGINT; an INTEGER product where it is {@code summed}. Both
   * engines must fail, or both give the same values.
   * Only for select lists: in a WHERE, DuckDB moves the constant of {@code x + c > 0} across the comparison
   * (its optimizer's MoveConstantsRule) and so never computes the sum that overflows.
   */
  Sql overflowing(List<Bound> scope, boolean summed) {
    Sql column = column(scope, Kind.INT, true);
    if (column == null) {
      return value(scope, Kind.INT, 0);
    }
    features.add(Feature.OVERFLOW);
    Kind kind = Kind.INT;
    // Summed, only a product: DuckDB rewrites SUM(x + c) into SUM(x) + c * COUNT(x), which never overflows, and
    // a SUM of BIGINT may pass 2^63 where no row does (DuckDB sums into HUGEINT, SQL into BIGINT and fails).
    return switch (summed ? 1 : random.nextInt(4)) {
      case 0 -> new Sql("(" + column.text() + " + " + (Integer.MAX_VALUE - between(0, 60)) + ")", kind);
      case 1 -> new Sql("(" + column.text() + " * " + between(40_000, 2_000_000) + ")", kind);
      case 2 -> new Sql("(" + column.text() + " - " + (Integer.MAX_VALUE - between(0, 5)) + " - 2)", kind);
      default -> new Sql("(CAST(" + column.text() + " AS BIGINT) * " + (Long.MAX_VALUE / between(50, 70_000)) + ")",
          kind);
    };
  }

  /** A boolean condition; NULL operands make it UNKNOWN. */
  String condition(List<Bound> scope, int depth) {
    int choice = random.nextInt(depth > 0 ? 9 : 5);
    return switch (choice) {
      case 0, 1 -> comparison(scope, pick(List.of(Kind.INT, Kind.DECIMAL)), depth);
      case 2 -> comparison(scope, pick(List.of(Kind.DATE, Kind.TEXT)), depth);
      case 3 -> inListOrBetween(scope);
      case 4 -> textPattern(scope);
      case 5 -> value(scope, pick(List.of(Kind.INT, Kind.DECIMAL)), depth - 1).text() + (chance(50) ? " IS NULL"
          : " IS NOT NULL");
      case 6 -> "NOT (" + condition(scope, depth - 1) + ")";
      default -> "(" + condition(scope, depth - 1) + (chance(50) ? " AND " : " OR ") + condition(scope, depth - 1)
          + ")";
    };
  }

  private String comparison(List<Bound> scope, Kind kind, int depth) {
    String op = pick(List.of("=", "<>", "<", "<=", ">", ">="));
    Sql left = value(scope, kind, kind == Kind.INT || kind == Kind.DECIMAL ? depth : 0);
    String right = chance(60) ? literal(scope, kind) : value(scope, kind, 0).text();
    return left.text() + " " + op + " " + right;
  }

  private String inListOrBetween(List<Bound> scope) {
    Kind kind = pick(List.of(Kind.INT, Kind.DECIMAL, Kind.DATE, Kind.TEXT));
    Sql column = column(scope, kind, true);
    if (column == null) {
      return "1 = " + between(0, 1);
    }
    String not = chance(25) ? "NOT " : "";
    if (chance(50)) {
      return column.text() + " " + not + "BETWEEN " + literal(scope, kind) + " AND " + literal(scope, kind);
    }
    List<String> values = new ArrayList<>();
    for (int i = between(1, 4); i > 0; i--) {
      values.add(literal(scope, kind));
    }
    return column.text() + " " + not + "IN (" + String.join(", ", values) + ")";
  }

  private String textPattern(List<Bound> scope) {
    Sql column = column(scope, Kind.TEXT, false);
    if (column == null) {
      return comparison(scope, Kind.INT, 0);
    }
    String sample = literal(scope, Kind.TEXT);
    String text = sample.substring(1, sample.length() - 1);
    String pattern = chance(50) ? text.substring(0, Math.min(text.length(), between(1, 3))) + "%"
        : "%" + text.substring(Math.max(0, text.length() - between(1, 3)));
    return column.text() + (chance(20) ? " NOT LIKE '" : " LIKE '") + pattern + "'";
  }

  /**
   * An aggregate call of {@code kind}'s values. AVG is only used where its type does not matter for the result
   * (not in HAVING or ORDER BY): Spillway keeps AVG of DECIMAL(15,2) exact at scale 2, DuckDB returns DOUBLE.
   */
  Sql aggregate(List<Bound> scope, boolean avgAllowed) {
    int choice = random.nextInt(avgAllowed ? 8 : 7);
    Kind kind = pick(List.of(Kind.INT, Kind.DECIMAL, Kind.DECIMAL, Kind.DATE, Kind.TEXT));
    Sql arg = value(scope, kind, 1);
    Sql number = value(scope, pick(List.of(Kind.INT, Kind.DECIMAL)), 1);
    return switch (choice) {
      case 0 -> new Sql("COUNT(*)", Kind.INT);
      case 1 -> new Sql("COUNT(" + arg.text() + ")", Kind.INT);
      case 2 -> new Sql("COUNT(DISTINCT " + arg.text() + ")", Kind.INT);
      case 3 -> new Sql("MIN(" + arg.text() + ")", arg.kind());
      case 4 -> new Sql("MAX(" + arg.text() + ")", arg.kind());
      case 7 -> {
        features.add(Feature.AVG);
        Sql decimal = value(scope, Kind.DECIMAL, 1);
        yield new Sql("AVG(" + decimal.text() + ")", Kind.DECIMAL);
      }
      default -> {
        if (number.kind() == Kind.INT) {
          features.add(Feature.SUM_OF_INTEGER);
        }
        yield new Sql("SUM(" + number.text() + ")", number.kind());
      }
    };
  }
}
