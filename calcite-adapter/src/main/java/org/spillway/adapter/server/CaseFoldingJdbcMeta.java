package org.spillway.adapter.server;

import java.sql.SQLException;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import org.apache.calcite.avatica.jdbc.JdbcMeta;

/**
 * Avatica's {@link JdbcMeta} whose table and column lookups forgive the upper-casing that remote
 * clients apply to unquoted names.
 *
 * <p>Avatica's remote driver reports {@code storesUpperCaseIdentifiers() == true} whatever the
 * server says, so tools such as sqlline upper-case unquoted names ({@code !columns lineitem} asks
 * for LINEITEM). Spillway folds unquoted names to lower case: when an upper-case pattern matches
 * nothing, the lower-case one is tried, which never hides an exact match.
 */
public class CaseFoldingJdbcMeta extends JdbcMeta {
  /** Creates a meta serving {@code url} with {@code info} as the driver properties. */
  public CaseFoldingJdbcMeta(String url, Properties info) throws SQLException {
    super(url, info);
  }

  /** Tables matching the patterns, retried in lower case when upper-case patterns match none. */
  @Override
  public MetaResultSet getTables(ConnectionHandle ch, String catalog, Pat schemaPattern,
      Pat tableNamePattern, List<String> typeList) {
    final MetaResultSet exact =
        super.getTables(ch, catalog, schemaPattern, tableNamePattern, typeList);
    if (!matchedNothing(exact) || !hasUpperCase(schemaPattern, tableNamePattern)) {
      return exact;
    }
    super.closeStatement(new StatementHandle(ch.id, exact.statementId, null));
    return super.getTables(ch, catalog, lowerCase(schemaPattern), lowerCase(tableNamePattern),
        typeList);
  }

  /** Like {@link #getTables}: an upper-case pattern that matches nothing is retried in lower case. */
  @Override
  public MetaResultSet getColumns(ConnectionHandle ch, String catalog, Pat schemaPattern,
      Pat tableNamePattern, Pat columnNamePattern) {
    final MetaResultSet exact =
        super.getColumns(ch, catalog, schemaPattern, tableNamePattern, columnNamePattern);
    if (!matchedNothing(exact) || !hasUpperCase(schemaPattern, tableNamePattern, columnNamePattern)) {
      return exact;
    }
    super.closeStatement(new StatementHandle(ch.id, exact.statementId, null));
    return super.getColumns(ch, catalog, lowerCase(schemaPattern), lowerCase(tableNamePattern),
        lowerCase(columnNamePattern));
  }

  private static boolean matchedNothing(MetaResultSet result) {
    return result.firstFrame != null && result.firstFrame.done
        && !result.firstFrame.rows.iterator().hasNext();
  }

  private static boolean hasUpperCase(Pat... patterns) {
    for (Pat pattern : patterns) {
      if (pattern != null && pattern.s != null
          && !pattern.s.equals(pattern.s.toLowerCase(Locale.ROOT))) {
        return true;
      }
    }
    return false;
  }

  private static Pat lowerCase(Pat pattern) {
    return pattern == null || pattern.s == null ? pattern
        : Pat.of(pattern.s.toLowerCase(Locale.ROOT));
  }
}
