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
}
