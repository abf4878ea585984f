package org.spillway.storage;

/** Failure of a storage operation; the message says what went wrong and where (table, file, line). */
public final class StorageException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public StorageException(String message) {
    super(message);
  }

  public StorageException(String message, Throwable cause) {
    super(message, cause);
  }
}
