package org.spillway.adapter.cli;

import java.sql.SQLException;
import org.spillway.storage.StorageException;

/** Turns exceptions into the one-line messages the command line shows. */
final class Messages {
  private Messages() {}

  /**
   * The most telling message of an exception chain: the first SQLException's or StorageException's (which says
   * the table, file or line and wraps its cause's words), else the root cause's.
   */
  static String describe(Throwable e) {
    Throwable root = e;
    for (Throwable t = e; t != null; t = t.getCause()) {
      if ((t instanceof SQLException || t instanceof StorageException) && t.getMessage() != null) {
        return t.getMessage();
      }
      root = t;
    }
    String message = root.getMessage();
    return message != null ? message : root.getClass().getSimpleName();
  }
}
