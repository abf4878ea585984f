package org.spillway.gpu;

import java.nio.file.Path;

/**
 * Spillway's own directory: the machine profile and the default TPC-H data live under it. It is
 * {@code ~/.spillway} unless the system property {@value #PROPERTY} names another one; the build's test
 * runs set that property to a directory under target/, so that no test reads or writes the user's home.
 */
public final class SpillwayHome {
  /** System property naming the Spillway home directory instead of ~/.spillway. */
  public static final String PROPERTY = "spillway.home";

  private SpillwayHome() {}

  /** The home directory (it may not exist yet). */
  public static Path directory() {
    String named = System.getProperty(PROPERTY);
    return named != null && !named.isBlank() ? Path.of(named)
        : Path.of(System.getProperty("user.home"), ".spillway");
  }
}
