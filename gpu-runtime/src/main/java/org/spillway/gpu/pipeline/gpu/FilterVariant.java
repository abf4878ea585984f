package org.spillway.gpu.pipeline.gpu;

import java.util.Locale;

/**
 * How a GPU pipeline kernel applies its filter (Pump Up the Volume, Q6): BRANCHING skips the rest of a row's
 * work when the predicate fails, PREDICATION evaluates every row and multiplies its contribution by the
 * predicate, trading wasted work for no divergence.
 */
public enum FilterVariant {
  BRANCHING,
  PREDICATION;

  /** The lower-case name used in properties and EXPLAIN. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Parses a label (case-insensitive); the error lists the accepted values. */
  public static FilterVariant parse(String text) {
    for (FilterVariant v : values()) {
      if (v.label().equalsIgnoreCase(text.trim())) {
        return v;
      }
    }
    throw new IllegalArgumentException("unknown filter variant '" + text + "'; expected branching or predication");
  }
}
