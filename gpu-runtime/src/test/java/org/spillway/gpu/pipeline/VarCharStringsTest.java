package org.spillway.gpu.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VarCharVector;
import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;
import org.junit.jupiter.api.Test;

/** Text rows decode as Java's own UTF-8 decoder reads them: empty, long, multi-byte and invalid values, NULLs. */
class VarCharStringsTest {
  @Test void loadedTextIsWhatTheVectorHolds() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    try (BufferAllocator allocator = new RootAllocator(); VarCharVector vector = new VarCharVector("t", allocator)) {
      int rows = 2_000;
      byte[][] values = new byte[rows][];
      vector.allocateNew(rows);
      for (int r = 0; r < rows; r++) {
        if (random.nextInt(10) == 0) {
          vector.setNull(r);
          continue;
        }
        values[r] = randomUtf8(random);
        vector.setSafe(r, values[r]);
      }
      vector.setValueCount(rows);
      int[] selection = random.ints(0, rows).distinct().limit(700).sorted().toArray();
      ColumnVector loaded = ArrowColumnLoader.load(vector, ExprType.TEXT, 0, selection, selection.length);
      for (int i = 0; i < selection.length; i++) {
        byte[] expected = values[selection[i]];
        String where = "seed " + seed + ", row " + selection[i];
        if (expected == null) {
          assertNull(loaded.objects[i], where);
        } else {
          assertEquals(new String(expected, StandardCharsets.UTF_8), loaded.objects[i], where);
        }
      }
      assertThrows(IndexOutOfBoundsException.class, () -> new VarCharStrings(vector).get(rows));
    }
  }

  private static byte[] randomUtf8(Random random) {
    int kind = random.nextInt(5);
    int length = kind == 0 ? 0 : kind == 1 ? 60 + random.nextInt(400) : random.nextInt(30);
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < length; i++) {
      text.appendCodePoint(kind == 2 ? 0x80 + random.nextInt(0x10000 - 0x80 - 0x800) : 'a' + random.nextInt(26));
    }
    byte[] bytes = text.toString().getBytes(StandardCharsets.UTF_8);
    if (kind == 3 && bytes.length > 0) {
      bytes[random.nextInt(bytes.length)] = (byte) 0xC3;  // malformed: decodes with replacement characters
    }
    return bytes;
  }
}
