package org.spillway.gpu.device;

/**
 * A query needs more memory than it may have: thrown before a large allocation that would not fit (see
 * {@link MemoryGuard}), or in place of an {@link OutOfMemoryError} caught at the query's boundary, so that the
 * query fails alone with SQLSTATE 53200 ("out of memory", class 53: insufficient resources) and the shell or
 * server that ran it lives on.
 */
public final class SpillwayResourceException extends RuntimeException {
  /** SQLSTATE 53200: "out of memory" (PostgreSQL's code in class 53, insufficient resources). */
  public static final String SQLSTATE = "53200";

  public SpillwayResourceException(String message) {
    super(message);
  }

  public SpillwayResourceException(String message, Throwable cause) {
    super(message, cause);
  }

  /** The SQLSTATE an SQLException for this error carries. */
  public String sqlState() {
    return SQLSTATE;
  }

  /** The error for an {@link OutOfMemoryError} that escaped the guard while running {@code what}. */
  public static SpillwayResourceException of(OutOfMemoryError error, String what) {
    return new SpillwayResourceException("out of memory: " + what + " ran out of memory (" + error.getMessage()
        + "); " + MemoryGuard.describeLimit(), error);
  }
}
