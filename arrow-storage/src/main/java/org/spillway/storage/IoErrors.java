package org.spillway.storage;

import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;

/** Says why a file operation failed in words (the JDK's file exceptions often carry only the path). */
final class IoErrors {
  private IoErrors() {}

  /** The reason of an I/O failure, e.g. "permission denied"; looks through one unchecked wrapper of an IOException. */
  static String reason(Throwable e) {
    Throwable cause = !(e instanceof java.io.IOException) && e.getCause() instanceof java.io.IOException ? e.getCause() : e;
    if (cause instanceof AccessDeniedException) {
      return "permission denied";
    }
    if (cause instanceof NoSuchFileException) {
      return "no such file";
    }
    if (cause instanceof NotDirectoryException) {
      return "not a directory";
    }
    if (cause instanceof FileSystemException fs && fs.getReason() != null) {
      return fs.getReason().toLowerCase(java.util.Locale.ROOT);
    }
    String message = cause.getMessage();
    return message == null ? cause.getClass().getSimpleName() : message;
  }
}
