package org.spillway.adapter.server;

import java.sql.SQLException;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.calcite.avatica.util.Quoting;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.parser.SqlParseException;
import org.apache.calcite.sql.parser.SqlParser;
import org.apache.calcite.sql.util.SqlBasicVisitor;
import org.spillway.adapter.SpillwaySchema;
import org.spillway.adapter.SpillwayExplainAnalyze;
import org.spillway.adapter.jdbc.SpillwaySqlErrors;
import org.spillway.storage.imports.ImportFormat;

/** Decides whether a SQL statement only reads, so that a read-only server can refuse everything else. */
public final class StatementClassifier {
  /** SQLSTATE 25006: "read-only SQL transaction", the standard code for a refused write. */
  static final String READ_ONLY_SQLSTATE = "25006";

  private static final Set<SqlKind> READ_KINDS = readKinds();

  /** Statements that write or change the catalog, DDL included (which this parser does not know). */
  private static final Pattern WRITE_VERB = Pattern.compile(
      "\\s*\\(*\\s*(insert|update|delete|merge|upsert|create|drop|alter|truncate|grant|revoke|call)\\b",
      Pattern.CASE_INSENSITIVE);

  private static final SqlParser.Config PARSER_CONFIG =
      SqlParser.config().withQuoting(Quoting.DOUBLE_QUOTE);

  private StatementClassifier() {}

  private static Set<SqlKind> readKinds() {
    final Set<SqlKind> kinds = EnumSet.copyOf(SqlKind.QUERY);
    // EXPLAIN only plans; DESCRIBE only reads the catalog.
    kinds.add(SqlKind.EXPLAIN);
    kinds.add(SqlKind.DESCRIBE_TABLE);
    kinds.add(SqlKind.DESCRIBE_SCHEMA);
    return kinds;
  }

  /**
   * Throws unless {@code sql} parses as a query, EXPLAIN or DESCRIBE, or is an EXPLAIN ANALYZE of one.
   *
   * <p>A statement that does not parse is refused too: the read-only guarantee must not depend on the
   * driver's parser accepting fewer statements than this one.
   */
  public static void requireReadOnly(String sql) throws SQLException {
    final Optional<String> analyzed = SpillwayExplainAnalyze.query(sql);
    if (analyzed.isPresent()) {
      // EXPLAIN ANALYZE runs its query, which Calcite's parser parses without the prefix it does not know
      requireReadOnly(analyzed.get());
      return;
    }
    final SqlNode node;
    try {
      node = SqlParser.create(sql, PARSER_CONFIG).parseStmt();
    } catch (SqlParseException e) {
      final SpillwaySqlErrors.Classified classified = SpillwaySqlErrors.classify(e);
      if (!classified.sqlState().equals(SpillwaySqlErrors.SYNTAX_ERROR)) {
        // Not a syntax error but a limit (nesting too deep for the parser's stack).
        throw new SQLException(classified.message() + " (statement: " + abbreviate(sql) + ")",
            classified.sqlState(), e);
      }
      if (WRITE_VERB.matcher(sql).lookingAt()) {
        throw new SQLException("Spillway server is read-only and could not classify the statement as a"
            + " query: " + firstLine(e.getMessage()) + " (statement: " + abbreviate(sql) + ")",
            READ_ONLY_SQLSTATE, e);
      }
      // Still refused, but as what it is: a typo in a query is a syntax error, not a write.
      throw new SQLException("SQL parse error: " + firstLine(e.getMessage()) + " (statement: "
          + abbreviate(sql) + ")", SpillwaySqlErrors.SYNTAX_ERROR, e);
    }
    if (!READ_KINDS.contains(node.getKind())) {
      throw new SQLException("Spillway server is read-only: " + node.getKind()
          + " statements are refused (start the server with --allow-writes to permit them);"
          + " statement: " + abbreviate(sql), READ_ONLY_SQLSTATE);
    }
    final Optional<String> reader = fileReader(node);
    if (reader.isPresent()) {
      throw new SQLException("Spillway server is read-only: " + reader.get() + " reads files on the server and is"
          + " refused (start the server with --allow-writes to permit it); statement: " + abbreviate(sql),
          READ_ONLY_SQLSTATE);
    }
  }

  /** The first table function in the statement that reads a file of the server's (read_parquet, ...), if any. */
  private static Optional<String> fileReader(SqlNode node) {
    final Set<String> names = new HashSet<>();
    for (ImportFormat format : ImportFormat.values()) {
      names.add(SpillwaySchema.fileFunctionName(format));
    }
    final String[] found = new String[1];
    node.accept(new SqlBasicVisitor<Void>() {
      @Override public Void visit(SqlCall call) {
        final String name = call.getOperator().getName().toLowerCase(Locale.ROOT);
        if (found[0] == null && names.contains(name)) {
          found[0] = name;
        }
        return super.visit(call);
      }
    });
    return Optional.ofNullable(found[0]);
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "parse error";
    }
    final int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }

  /** Shortens SQL for messages and log lines, on one line. */
  static String abbreviate(String sql) {
    final String flat = sql.replaceAll("\\s+", " ").trim();
    return flat.length() <= 200 ? flat : flat.substring(0, 197) + "...";
  }
}
