package org.spillway.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Dictionary codes found by the UTF-8 bytes of a vector's values, as the strings they decode to would find them. */
class Utf8CodesTest {
  /** Small dictionaries are scanned, larger ones hashed: both find every code. */
  @ParameterizedTest
  @ValueSource(ints = {Utf8Codes.SCANNED_ENTRIES - 1, 1000})
  void everyValueFindsItsCodeByItsBytes(int size) {
    List<String> dictionary = IntStream.range(0, size).mapToObj(i -> i % 7 == 0 ? "é" + i : "v" + i)
        .sorted().toList();
    List<String> withEmpty = new ArrayList<>(dictionary);
    withEmpty.add(0, "");
    Utf8Codes codes = new Utf8Codes(withEmpty);
    try (BufferAllocator allocator = StorageAllocator.root().newChildAllocator("test", 0, Long.MAX_VALUE);
        VarCharVector vector = new VarCharVector("s", allocator)) {
      vector.allocateNew();
      for (int row = 0; row < withEmpty.size(); row++) {
        // rows in reverse, so that a row's code is not its position
        vector.setSafe(row, withEmpty.get(withEmpty.size() - 1 - row).getBytes(StandardCharsets.UTF_8));
      }
      vector.setValueCount(withEmpty.size());
      byte[][] scratch = {new byte[1]};
      for (int row = 0; row < withEmpty.size(); row++) {
        assertEquals(withEmpty.size() - 1 - row, codes.code(vector, row, scratch), "row " + row);
      }
      vector.setNull(1);
      try (IntVector target = new IntVector("codes", allocator)) {
        target.allocateNew(withEmpty.size());
        codes.codes(vector, withEmpty.size(), target, scratch);
        for (int row = 0; row < withEmpty.size(); row++) {
          if (row == 1) {
            assertTrue(target.isNull(row));
          } else {
            assertEquals(withEmpty.size() - 1 - row, target.get(row), "row " + row);
          }
        }
      }
    }
  }

  @Test
  void malformedBytesFindTheStringTheyDecodeToAndUnknownValuesFail() {
    Utf8Codes codes = new Utf8Codes(List.of("a", "ok\uFFFD"));
    try (BufferAllocator allocator = StorageAllocator.root().newChildAllocator("test", 0, Long.MAX_VALUE);
        VarCharVector vector = new VarCharVector("s", allocator)) {
      vector.allocateNew();
      vector.setSafe(0, new byte[] {'o', 'k', (byte) 0xC3});
      vector.setSafe(1, "b".getBytes(StandardCharsets.UTF_8));
      vector.setValueCount(2);
      byte[][] scratch = {new byte[8]};
      assertEquals(1, codes.code(vector, 0, scratch));
      StorageException missing = assertThrows(StorageException.class, () -> codes.code(vector, 1, scratch));
      assertTrue(missing.getMessage().contains("'b' of column s is not in its dictionary"), missing.getMessage());
    }
  }
  /** Values declared with each row's index into them give the codes the rows' bytes give. */
  @Test
  void declaredValuesGiveTheCodesOfTheirRowsBytes() {
    List<String> dictionary = IntStream.range(0, 40).mapToObj(i -> i % 3 == 0 ? "é" + i : "v" + i).sorted().toList();
    Utf8Codes codes = new Utf8Codes(dictionary);
    byte[][] values = {"v7".getBytes(StandardCharsets.UTF_8), "é3".getBytes(StandardCharsets.UTF_8),
        "v38".getBytes(StandardCharsets.UTF_8)};
    int rows = 50;
    char[] valueOfRow = new char[rows];
    try (BufferAllocator allocator = StorageAllocator.root().newChildAllocator("test", 0, Long.MAX_VALUE);
        VarCharVector vector = new VarCharVector("s", allocator);
        IntVector byBytes = new IntVector("a", allocator);
        IntVector byValues = new IntVector("b", allocator)) {
      vector.allocateNew();
      for (int row = 0; row < rows; row++) {
        valueOfRow[row] = (char) (row * 5 % values.length);
        if (row % 6 == 1) {
          vector.setNull(row);
        } else {
          vector.setSafe(row, values[valueOfRow[row]]);
        }
      }
      vector.setValueCount(rows);
      byBytes.allocateNew(rows);
      byValues.allocateNew(rows);
      codes.codes(vector, rows, byBytes, new byte[][] {new byte[1]});
      codes.codes(values, valueOfRow, vector, rows, byValues);
      byBytes.setValueCount(rows);
      byValues.setValueCount(rows);
      for (int row = 0; row < rows; row++) {
        assertEquals(byBytes.getObject(row), byValues.getObject(row), "row " + row);
        assertEquals(row % 6 == 1, byValues.isNull(row), "row " + row);
      }
    }
  }
}
