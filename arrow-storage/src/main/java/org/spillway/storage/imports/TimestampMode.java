package org.spillway.storage.imports;

import java.util.Locale;

/**
 * What an import does with a TIMESTAMP column, a type Spillway's tables cannot hold: refuse the file (the
 * default, so that nothing changes meaning silently), keep the date (UTC) or keep the instant as a BIGINT of
 * microseconds since 1970-01-01 UTC.
 */
public enum TimestampMode {
  REJECT, DATE, MICROS;

  /** The mode named by reject, date or micros (case-insensitive). */
  public static TimestampMode parse(String name) {
    try {
      return valueOf(name.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("unknown timestamp mode '" + name + "'; use reject, date or micros");
    }
  }

  /** The hint an error about a TIMESTAMP column gives. */
  static String hint() {
    return "Spillway has no TIMESTAMP type; import it as a date or as microseconds since 1970"
        + " (--timestamps=date or --timestamps=micros)";
  }
}
