package org.spillway.gpu.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.spillway.gpu.expr.Expr;
import org.spillway.gpu.expr.Utf8;
import org.spillway.gpu.expr.Utf8LikeMatcherTest;
import org.spillway.gpu.expr.VectorEvaluator;
import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;

/**
 * {@link Morsel#filter} of text predicates on Arrow's UTF-8 bytes ({@link TextSelection}) against the same
 * conditions evaluated by {@link VectorEvaluator} on the decoded strings: [NOT] LIKE, =, <> and IN lists of a
 * column or of a SUBSTRING of it, over random text with multi-byte characters, empty strings and NULLs, after an
 * earlier filter that left a selection.
 */
class TextSelectionTest {
  private static final Expr TEXT = new Expr.Column(0, ExprType.TEXT);
  private static final Expr NUMBER = new Expr.Column(1, ExprType.INT32);

  private BufferAllocator allocator;

  @BeforeEach void open() {
    allocator = new RootAllocator();
  }

  @AfterEach void close() {
    allocator.close();
  }

  @Test void keepsTheRowsTheStringEvaluationKeeps() {
    long seed = Long.getLong("seed", System.nanoTime());
    Random random = new Random(seed);
    for (int trial = 0; trial < 300; trial++) {
      int rows = 1 + random.nextInt(random.nextBoolean() ? 40 : 2000);
      int offset = random.nextInt(3) == 0 ? random.nextInt(50) : 0;
      String[] values = new String[offset + rows];
      boolean nulls = random.nextBoolean();
      for (int r = 0; r < values.length; r++) {
        values[r] = nulls && random.nextInt(8) == 0 ? null : Utf8LikeMatcherTest.randomText(random, 9);
      }
      Expr condition = randomCondition(random, values);
      String where = "seed " + seed + ", trial " + trial + ", " + condition;
      assertNotNull(TextSelection.of(condition), printable(where) + " is not evaluated on bytes");
      Expr earlier = random.nextBoolean() ? null
          : new Expr.Compare(Expr.CompareOp.GT, NUMBER, new Expr.Literal(0L, ExprType.INT32));
      try (VarCharVector text = varChar(values); IntVector numbers = numbers(values.length)) {
        Morsel morsel = Morsel.ofSource(new FieldVector[] {text, numbers}, List.of(ExprType.TEXT, ExprType.INT32),
            offset, rows);
        if (earlier != null) {
          morsel.filter(earlier);
        }
        morsel.filter(condition);
        assertEquals(expected(values, offset, rows, earlier != null, condition), kept(morsel), printable(where));
      }
    }
  }

  /** The text with line breaks and other controls as escapes, so a report shows all of it on one line. */
  private static String printable(String text) {
    StringBuilder out = new StringBuilder();
    text.codePoints().forEach(c -> out.append(Character.isISOControl(c) || c == 0x2028 ? String.format("\\u%04x", c)
        : Character.toString(c)));
    return out.toString();
  }

  @Test void substringBoundsAreThoseOfTheDecodedString() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    try (ArrowBuf buf = allocator.buffer(256)) {
      for (int round = 0; round < 20000; round++) {
        String s = Utf8LikeMatcherTest.randomText(random, 8);
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        buf.setBytes(0, bytes);
        int start = random.nextInt(12) - 3;
        int length = random.nextInt(8) == 0 ? Integer.MAX_VALUE : random.nextInt(8);
        String expected = new Expr.Substring(TEXT, start, length).of(s);
        long bounds = TextSelection.substringBounds(buf.memoryAddress(), bytes.length, start, length);
        String where = "seed " + seed + ": SUBSTRING('" + s + "' FROM " + start + " FOR " + length + ")";
        if (bounds < 0) {
          assertTrue(!Utf8.wellFormed(expected), where + " splits no surrogate pair, yet gave no bounds");
        } else {
          int from = (int) (bounds >>> 32);
          assertEquals(expected, new String(bytes, from, (int) bounds - from, StandardCharsets.UTF_8), where);
        }
      }
    }
  }

  @Test void leavesOtherShapesToTheEvaluator() {
    Expr literal = new Expr.Literal("a", ExprType.TEXT);
    assertNull(TextSelection.of(new Expr.Compare(Expr.CompareOp.LT, TEXT, literal)));
    assertNull(TextSelection.of(new Expr.Compare(Expr.CompareOp.EQ, TEXT, new Expr.Literal("\uD83D", ExprType.TEXT))));
    assertNull(TextSelection.of(new Expr.Logical(false, List.of(new Expr.Compare(Expr.CompareOp.EQ, TEXT, literal),
        new Expr.Compare(Expr.CompareOp.EQ, new Expr.Substring(TEXT, 1, 1), literal)))));
    assertNull(TextSelection.of(new Expr.Logical(false, List.of(new Expr.Compare(Expr.CompareOp.NE, TEXT, literal)))));
    assertNull(TextSelection.of(Expr.Like.of(TEXT, "%\uD83D%", null)));
  }

  private static Expr randomCondition(Random random, String[] values) {
    Expr operand = random.nextBoolean() ? TEXT
        : new Expr.Substring(TEXT, random.nextInt(6) - 2, random.nextInt(6) == 0 ? Integer.MAX_VALUE : random.nextInt(5));
    Expr condition = switch (random.nextInt(4)) {
      case 0 -> Expr.Like.of(TEXT, likePattern(random, values), random.nextBoolean() ? "!" : null);
      case 1 -> new Expr.Compare(random.nextBoolean() ? Expr.CompareOp.EQ : Expr.CompareOp.NE, operand,
          literal(random, values, operand));
      default -> {
        List<Expr> equalities = new ArrayList<>();
        for (int i = 1 + random.nextInt(5); i > 0; i--) {
          Expr literal = literal(random, values, operand);
          equalities.add(random.nextBoolean() ? new Expr.Compare(Expr.CompareOp.EQ, operand, literal)
              : new Expr.Compare(Expr.CompareOp.EQ, literal, operand));
        }
        yield new Expr.Logical(false, equalities);
      }
    };
    return random.nextInt(3) == 0 ? new Expr.Not(condition) : condition;
  }

  /** A literal that some value (or its substring) often equals. */
  private static Expr literal(Random random, String[] values, Expr operand) {
    String v = values[random.nextInt(values.length)];
    if (v != null && operand instanceof Expr.Substring sub) {
      v = sub.of(v);
    }
    if (v == null || !Utf8.wellFormed(v) || random.nextInt(4) == 0) {  // half a 4-byte character: no literal
      v = Utf8LikeMatcherTest.randomText(random, 3);
    }
    return new Expr.Literal(v, ExprType.TEXT);
  }

  /** A value's characters with % and _ between some of them (so that patterns match often). */
  private static String likePattern(Random random, String[] values) {
    String v = values[random.nextInt(values.length)];
    StringBuilder out = new StringBuilder(random.nextBoolean() ? "%" : "");
    (v == null ? "ab" : v.replaceAll("[%_!]", "a")).codePoints().forEach(c -> {
      int wildcard = random.nextInt(6);
      out.append(wildcard == 0 ? "%" : wildcard == 1 ? "_" : "").appendCodePoint(c);
    });
    return out.append(random.nextBoolean() ? "%" : "").toString();
  }

  private static List<String> expected(String[] values, int offset, int rows, boolean earlier, Expr condition) {
    int[] positions = new int[rows];
    int count = 0;
    for (int r = 0; r < rows; r++) {
      if (!earlier || (offset + r) % 3 != 0) {
        positions[count++] = offset + r;
      }
    }
    Object[] texts = new Object[count];
    boolean[] nulls = new boolean[count];
    for (int k = 0; k < count; k++) {
      texts[k] = values[positions[k]];
      nulls[k] = texts[k] == null;
    }
    ColumnVector column = ColumnVector.ofObjects(ExprType.TEXT, texts, nulls, count);
    ColumnVector predicate = VectorEvaluator.evaluate(condition, i -> column, count);
    List<String> kept = new ArrayList<>();
    for (int k = 0; k < count; k++) {
      if (!predicate.isNull(k) && predicate.longs[k] == 1) {
        kept.add(positions[k] + ":" + values[positions[k]]);
      }
    }
    return kept;
  }

  private static List<String> kept(Morsel morsel) {
    ColumnVector text = morsel.column(0);
    ColumnVector row = morsel.column(1);
    List<String> kept = new ArrayList<>();
    for (int k = 0; k < morsel.rows(); k++) {
      kept.add(Math.abs(row.longs[k]) - 1 + ":" + text.objects[k]);
    }
    return kept;
  }

  private VarCharVector varChar(String[] values) {
    VarCharVector v = new VarCharVector("text", allocator);
    v.allocateNew(values.length);
    for (int r = 0; r < values.length; r++) {
      if (values[r] != null) {
        v.setSafe(r, values[r].getBytes(StandardCharsets.UTF_8));
      }
    }
    v.setValueCount(values.length);
    return v;
  }

  /** Each row's number plus one, negated on every third row (what the earlier filter drops). */
  private IntVector numbers(int rows) {
    IntVector v = new IntVector("row", allocator);
    v.allocateNew(rows);
    for (int r = 0; r < rows; r++) {
      v.set(r, (r % 3 == 0 ? -1 : 1) * (r + 1));
    }
    v.setValueCount(rows);
    return v;
  }
}
