package org.spillway.storage;

import java.io.IOException;

/**
 * Failure of a storage operation; the message says what went wrong and where (table, file, line). Its SQLSTATE
 * ({@link #getSqlState}, read by the JDBC layer) tells damaged data ({@code XX001}) and failed I/O ({@code 58030})
 * apart from other failures, whose class the JDBC layer decides.
 */
public final class StorageException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  /** PostgreSQL's data_corrupted. */
  public static final String DATA_CORRUPTED = "XX001";
  /** PostgreSQL's io_error. */
  public static final String IO_ERROR = "58030";

  private final String sqlState;

  public StorageException(String message) {
    this(message, null);
  }

  public StorageException(String message, Throwable cause) {
    this(null, message, cause);
  }

  private StorageException(String sqlState, String message, Throwable cause) {
    super(message, cause);
    this.sqlState = sqlState;
  }

  /** Stored data that fails its checks (checksums, NOT NULL, metadata that does not parse). */
  public static StorageException corrupted(String message, Throwable cause) {
    return new StorageException(DATA_CORRUPTED, message, cause);
  }

  /**
   * The SQLSTATE of this failure: the one it was made with, else its cause's (a storage failure wrapped with
   * the table's name), else {@link #IO_ERROR} when an I/O operation failed, else null (not known here).
   */
  public String getSqlState() {
    if (sqlState != null) {
      return sqlState;
    }
    Throwable cause = getCause();
    if (cause instanceof StorageException s) {
      return s.getSqlState();
    }
    return cause instanceof IOException || cause instanceof java.io.UncheckedIOException ? IO_ERROR : null;
  }
}
