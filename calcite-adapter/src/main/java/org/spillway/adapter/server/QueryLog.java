package org.spillway.adapter.server;

import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Writes one line per finished query (user, duration, rows, device, outcome) and tells listeners. */
public final class QueryLog {
  private static final Logger LOG = LoggerFactory.getLogger(QueryLog.class);

  /**
   * How a query ended: all rows fetched, closed by the client before its last row (a client-side
   * LIMIT or cancel), failed, timed out, or refused (read-only mode, server busy).
   */
  public enum Outcome { OK, CLOSED, FAILED, TIMED_OUT, REFUSED }

  /**
   * One finished query as the log line reports it; {@code resultPath} says how a Flight SQL result was filled
   * ({@code columnar} from the engine's columns, {@code rows} from the JDBC result set), null elsewhere.
   */
  public record Entry(String user, String connectionId, int statementId, String sql,
      long durationNanos, long rows, String device, Outcome outcome, String error, String resultPath) {

    /** The log line: key=value pairs, SQL last because it may contain spaces. */
    public String format() {
      final StringBuilder line = new StringBuilder(160);
      line.append("query user=").append(user)
          .append(" conn=").append(connectionId, 0, Math.min(8, connectionId.length()))
          .append(" stmt=").append(statementId)
          .append(" duration_ms=").append(String.format(Locale.ROOT, "%.1f", durationNanos / 1e6))
          .append(" rows=").append(rows)
          .append(" device=").append(device)
          .append(" outcome=").append(outcome.name().toLowerCase(Locale.ROOT));
      if (resultPath != null) {
        line.append(" path=").append(resultPath);
      }
      if (error != null) {
        line.append(" error=").append(quote(StatementClassifier.abbreviate(error)));
      }
      return line.append(" sql=").append(quote(StatementClassifier.abbreviate(sql))).toString();
    }

    /** Double-quotes a value, escaping backslashes and quotes, so that log parsers can split it. */
    private static String quote(String value) {
      return '"' + value.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
    }
  }

  private final List<Consumer<Entry>> listeners = new CopyOnWriteArrayList<>();

  /** Registers a listener that sees every entry after it is logged; used by tests and benchmarks. */
  public void addListener(Consumer<Entry> listener) {
    listeners.add(listener);
  }

  /** Removes a listener added by {@link #addListener}. */
  public void removeListener(Consumer<Entry> listener) {
    listeners.remove(listener);
  }

  void write(Entry entry) {
    LOG.info(entry.format());
    for (Consumer<Entry> listener : listeners) {
      listener.accept(entry);
    }
  }
}
