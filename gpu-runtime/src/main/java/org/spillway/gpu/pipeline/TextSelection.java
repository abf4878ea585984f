package org.spillway.gpu.pipeline;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.VarCharVector;
import org.spillway.gpu.expr.Expr;
import org.spillway.gpu.expr.Utf8;
import org.spillway.gpu.expr.Utf8LikeMatcher;
import org.spillway.gpu.expr.ByteSearch;
import org.spillway.gpu.vector.ExprType;

/**
 * A filter conjunct over plain text evaluated on the UTF-8 bytes of the Arrow VarChar column at the selected rows,
 * decoding nothing and making no String per row: {@code [NOT] LIKE} with any pattern ({@link Utf8LikeMatcher}),
 * and {@code =}, {@code <>} and {@code IN} against text literals (IN as Calcite expands it: an OR of equalities),
 * of the column or of a {@code SUBSTRING} of it with literal positions. Equal strings have equal UTF-8 bytes, so
 * equality needs no decoding; SUBSTRING counts UTF-16 units as Calcite's does. A NULL row is never kept.
 *
 * <p>Comparisons by order ({@code <}, {@code BETWEEN}) and anything over a column already held as strings go
 * through {@link VectorEvaluator}.
 */
final class TextSelection {
  private final int column;
  /** The pattern of a LIKE, or null for an IN list. */
  private final Utf8LikeMatcher like;
  /** The literals of an IN list (one for = and <>). */
  private final ByteSearch[] literals;
  /** The SUBSTRING the literals are compared with, or null for the whole value. */
  private final Expr.Substring substring;
  /** Whether the rows kept are the non-NULL ones that do not match. */
  private final boolean negated;

  /**
   * Whether every literal fits one word: a value is then read once as a word and compared with each literal's word
   * (TPC-H Q22's seven two-character country codes), not byte by byte per literal.
   */
  private final boolean wordLiterals;

  private TextSelection(int column, Utf8LikeMatcher like, ByteSearch[] literals, Expr.Substring substring,
      boolean negated) {
    this.column = column;
    this.like = like;
    this.literals = literals;
    this.substring = substring;
    this.negated = negated;
    boolean words = literals != null;
    for (int k = 0; words && k < literals.length; k++) {
      words = literals[k].fitsWord();
    }
    this.wordLiterals = words;
  }

  /** The selection of a conjunct of one of the shapes above, or null for any other. */
  static TextSelection of(Expr condition) {
    boolean negated = false;
    if (condition instanceof Expr.Not not) {
      negated = true;
      condition = not.operand();
    }
    if (condition instanceof Expr.Like l && l.bytes() != null && textColumn(l.operand()) != null) {
      return new TextSelection(textColumn(l.operand()).index(), l.bytes(), null, null, negated);
    }
    if (condition instanceof Expr.Compare c && (c.op() == Expr.CompareOp.EQ || c.op() == Expr.CompareOp.NE)) {
      TextSelection equality = equalities(List.of(new Expr.Compare(Expr.CompareOp.EQ, c.left(), c.right())));
      return equality == null ? null : new TextSelection(equality.column, null, equality.literals, equality.substring,
          negated != (c.op() == Expr.CompareOp.NE));
    }
    if (condition instanceof Expr.Logical l && !l.and()) {
      TextSelection in = equalities(l.operands());
      return in == null ? null : new TextSelection(in.column, null, in.literals, in.substring, negated);
    }
    return null;
  }

  /** The column the selection reads. */
  int column() {
    return column;
  }

  /**
   * Refines {@code s.positions[0 .. count-1]} to the rows the conjunct keeps, reading the column's bytes at
   * {@code rows} ({@code offset + rows[k]}; null: {@code offset + k}); returns how many remain.
   */
  int select(VarCharVector text, int offset, int[] rows, SelectionScratch s, int count) {
    int last = offset + (rows == null ? count - 1 : rows[count - 1]);
    if (offset < 0 || last >= text.getValueCount()) {
      throw new IndexOutOfBoundsException("rows " + offset + ".." + last + " outside the " + text.getValueCount()
          + " rows of " + text.getField());
    }
    boolean[] nulls = ArrowColumnLoader.readNulls(text, offset, rows, count, s.leftNulls) ? s.leftNulls : null;
    long offsets = text.getOffsetBuffer().memoryAddress();
    long data = text.getDataBuffer().memoryAddress();
    int[] positions = s.positions;
    int flip = negated ? 1 : 0;
    ByteSearch required = like == null || like.startsWithLiteral() || !denseRows(rows, count) ? null
        : like.requiredLiteral();
    // The rows ascend, so their bytes do too: one forward search through them finds each row's first occurrence
    // of the literal every match holds (the search resumes where the last one stopped), and only rows holding it
    // go through the whole pattern. A pattern that starts with literal text tests each row's first bytes instead.
    long to = required == null ? 0 : data + MemoryUtil.getInt(offsets + ((long) (last + 1) << 2));
    long next = Long.MIN_VALUE;  // the next occurrence's address; -1: none up to the last row's end
    int kept = 0;
    for (int k = 0; k < count; k++) {
      long row = offset + (rows == null ? k : rows[k]);
      int start = MemoryUtil.getInt(offsets + (row << 2));
      int end = MemoryUtil.getInt(offsets + ((row + 1) << 2));
      int hit;
      if (required != null) {
        if (next != -1 && next < data + start) {
          next = required.indexOf(data + start, to);
        }
        boolean holds = next >= 0 && next + required.length() <= data + end;
        hit = holds && like.matches(data + start, end - start) ? 1 : 0;
      } else {
        hit = (like != null ? like.matches(data + start, end - start) : inList(data + start, end - start)) ? 1 : 0;
      }
      positions[kept] = positions[k];
      kept += nulls != null && nulls[k] ? 0 : hit ^ flip;
    }
    return kept;
  }

  /** Whether the selected rows cover at least half of their range, so that searching all of its bytes pays. */
  private static boolean denseRows(int[] rows, int count) {
    return rows == null || 2L * count >= (long) rows[count - 1] - rows[0] + 1;
  }

  private boolean inList(long address, int length) {
    long from = address;
    long to = address + length;
    if (substring != null) {
      long bounds = substringBounds(address, length, substring.start(), substring.length());
      if (bounds < 0) {
        return false;  // the substring splits a surrogate pair: no well-formed literal equals it
      }
      from = address + (bounds >>> 32);
      to = address + (int) bounds;
    }
    int n = (int) (to - from);
    if (wordLiterals) {
      if (n > 8) {
        return false;
      }
      long word = ByteSearch.wordAt(from, n);
      for (ByteSearch literal : literals) {
        if (literal.length() == n && literal.word() == word) {
          return true;
        }
      }
      return false;
    }
    for (ByteSearch literal : literals) {
      if (literal.length() == n && literal.at(from)) {
        return true;
      }
    }
    return false;
  }

  /**
   * The byte range of SUBSTRING(value FROM start FOR length) as {@link Expr.Substring#of} takes it from the
   * decoded string (1-based UTF-16 units, clipped to the value): the first byte in the high and the end in the
   * low 32 bits; -1 when it holds one unit of a surrogate pair (half of a 4-byte character).
   */
  static long substringBounds(long address, int bytes, int start, int length) {
    long fromUnit = Math.max(start - 1, 0);
    long toUnit = (long) start + length - 1;
    if (toUnit <= fromUnit) {
      return 0;  // empty wherever it starts, even between the units of a pair
    }
    int p = 0;
    long unit = 0;
    while (unit < fromUnit && p < bytes) {
      int size = Utf8.characterLength(MemoryUtil.getByte(address + p));
      p += size;
      unit += size == 4 ? 2 : 1;
    }
    if (unit < fromUnit) {
      return 0;  // starts after the value's end: the empty string
    }
    if (unit > fromUnit) {
      return -1;
    }
    int first = p;
    while (unit < toUnit && p < bytes) {
      int size = Utf8.characterLength(MemoryUtil.getByte(address + p));
      p += size;
      unit += size == 4 ? 2 : 1;
    }
    if (unit > toUnit) {
      return -1;
    }
    return (long) first << 32 | p;
  }

  /**
   * The IN list of equalities of one operand (a text column or a SUBSTRING of one) with non-NULL, well-formed
   * text literals; null if the operands are anything else.
   */
  private static TextSelection equalities(List<Expr> operands) {
    Expr operand = null;
    List<ByteSearch> literals = new ArrayList<>();
    for (Expr e : operands) {
      if (!(e instanceof Expr.Compare c) || c.op() != Expr.CompareOp.EQ) {
        return null;
      }
      Expr value = c.left() instanceof Expr.Literal ? c.right() : c.left();
      Expr other = value == c.left() ? c.right() : c.left();
      if (!(other instanceof Expr.Literal literal) || !(literal.value() instanceof String text)
          || operand != null && !operand.equals(value) || !Utf8.wellFormed(text)) {
        return null;
      }
      operand = value;
      literals.add(new ByteSearch(text.getBytes(StandardCharsets.UTF_8)));
    }
    Expr.Substring substring = operand instanceof Expr.Substring sub ? sub : null;
    Expr.Column column = textColumn(substring != null ? substring.operand() : operand);
    return column == null ? null
        : new TextSelection(column.index(), null, literals.toArray(new ByteSearch[0]), substring, false);
  }

  private static Expr.Column textColumn(Expr e) {
    return e instanceof Expr.Column c && c.type().kind() == ExprType.Kind.TEXT ? c : null;
  }
}
