package org.spillway.gpu.join.nopa;

import org.spillway.gpu.join.LinearProbingTable;
import java.util.Locale;

/**
 * The shape of a NopaHashJoin table: its kind, its slots of 16-byte {key, value} entries and how many of them
 * sit in GPU memory (the rest in pinned host memory). Pure arithmetic, so the placement rules are tested
 * without a GPU.
 *
 * <p>Linear probing takes 2 x next_pow2(rows) slots (load factor at most 50%), the same sizing and slot
 * function as {@link LinearProbingTable}; the array table takes one slot per key of [min, max].
 */
record NopaTableLayout(Kind kind, long slots, int logSlots, long minKey, long gpuSlots,
    HashTablePlacement placement) {
  /** Bytes per entry: an 8-byte key and an 8-byte value. */
  static final int ENTRY_BYTES = 16;
  /** 2^40 entries (16 TiB): far beyond any machine, so the shift arithmetic never overflows. */
  static final int MAX_LOG_SLOTS = 40;

  /** The two tables of NOPA. */
  enum Kind {
    PERFECT("perfect-hash"),
    LINEAR_PROBING("linear-probing");

    private final String label;

    Kind(String label) {
      this.label = label;
    }

    String label() {
      return label;
    }
  }

  NopaTableLayout {
    if (gpuSlots < 0 || gpuSlots > slots) {
      throw new IllegalArgumentException("GPU part of " + gpuSlots + " slots outside a table of " + slots);
    }
  }

  /** log2 of the linear probing table's slots for {@code rows} build rows: next_pow2(rows), doubled. */
  static int linearProbingLogSlots(long rows) {
    int log = rows <= 1 ? 0 : 64 - Long.numberOfLeadingZeros(rows - 1);
    if (log + 1 > MAX_LOG_SLOTS) {
      throw new IllegalArgumentException("build side of " + rows + " rows exceeds the NOPA table's limit of 2^"
          + (MAX_LOG_SLOTS - 1) + " rows");
    }
    return log + 1;
  }

  /**
   * Plans the table for {@code stats}: the array table if {@code perfect}, else linear probing; placed as
   * {@code forced} says, or (null) in GPU memory when it fits {@code gpuBudgetBytes}, else as a hybrid whose
   * GPU part fills the budget, else (no budget at all) in host memory.
   */
  static NopaTableLayout plan(BuildKeyStats stats, boolean perfect, HashTablePlacement forced, long gpuBudgetBytes) {
    Kind kind = perfect ? Kind.PERFECT : Kind.LINEAR_PROBING;
    int logSlots = perfect ? 0 : linearProbingLogSlots(stats.rows());
    long slots = perfect ? stats.perfectSlots() : 1L << logSlots;
    long budgetSlots = Math.max(0, gpuBudgetBytes) / ENTRY_BYTES;
    HashTablePlacement placement = forced != null ? forced
        : slots <= budgetSlots ? HashTablePlacement.GPU
        : budgetSlots > 0 ? HashTablePlacement.HYBRID : HashTablePlacement.HOST;
    long gpuSlots = switch (placement) {
      case GPU -> {
        if (slots > budgetSlots) {
          throw new IllegalArgumentException("NOPA table of " + slots * ENTRY_BYTES + " bytes (" + kind.label()
              + ", " + stats.rows() + " build rows) does not fit the GPU budget of " + gpuBudgetBytes
              + " bytes; place it HYBRID or HOST");
        }
        yield slots;
      }
      case HYBRID -> Math.min(slots, budgetSlots);
      case HOST -> 0;
    };
    return new NopaTableLayout(kind, slots, logSlots, perfect ? stats.min() : 0, gpuSlots, placement);
  }

  long tableBytes() {
    return slots * ENTRY_BYTES;
  }

  long gpuBytes() {
    return gpuSlots * ENTRY_BYTES;
  }

  long hostBytes() {
    return (slots - gpuSlots) * ENTRY_BYTES;
  }

  /** Share of the entries in GPU memory. */
  double gpuFraction() {
    return slots == 0 ? 1 : gpuSlots / (double) slots;
  }

  /** The variant name for results and stats, e.g. {@code nopa/linear-probing/hybrid(0.62)}. */
  String variant() {
    String where = placement == HashTablePlacement.HYBRID
        ? String.format(Locale.ROOT, "hybrid(%.2f)", gpuFraction()) : placement.label();
    return "nopa/" + kind.label() + "/" + where;
  }
}
