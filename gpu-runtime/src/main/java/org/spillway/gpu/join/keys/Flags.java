package org.spillway.gpu.join.keys;

/** Per-row flags of one encoding call over {@code rows} rows, allocated when the first row is flagged. */
final class Flags {
  private final int rows;
  private boolean[] set;

  Flags(int rows) {
    this.rows = rows;
  }

  boolean get(int r) {
    return set != null && set[r];
  }

  void set(int r) {
    if (set == null) {
      set = new boolean[rows];
    }
    set[r] = true;
  }

  /** Flags every row flagged in {@code flags} (null: none). */
  void or(boolean[] flags) {
    if (flags == null) {
      return;
    }
    if (set == null) {
      set = java.util.Arrays.copyOf(flags, rows);
      return;
    }
    for (int r = 0; r < rows; r++) {
      set[r] |= flags[r];
    }
  }

  /** The flags, or null when none is set. */
  boolean[] array() {
    return set;
  }
}
