package org.spillway.gpu.transfer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.junit.jupiter.api.Test;

/** Chunk sizing, option validation and method names (no GPU needed). */
class TransferOptionsTest {
  @Test
  void chunkRowsAreWarpMultiples() {
    TransferOptions o = TransferOptions.DEFAULT.withChunkBytes(100_000);
    assertEquals(0, o.chunkRows(8) % 32);
    assertTrue(o.chunkRows(8) * 8 <= 100_000);
    assertEquals(32, TransferOptions.DEFAULT.withChunkBytes(4096).chunkRows(8192));
  }

  @Test
  void invalidOptionsSayWhatIsWrong() {
    var e = assertThrows(IllegalArgumentException.class, () -> new TransferOptions(1 << 20, 1, 2));
    assertTrue(e.getMessage().contains("slots"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> new TransferOptions(100, 2, 2));
  }

  @Test
  void methodsParseByPaperName() {
    assertEquals(TransferMethod.ZERO_COPY, TransferMethod.parse("zero-copy"));
    assertEquals(TransferMethod.UM_PREFETCH, TransferMethod.parse("UM prefetch"));
    assertEquals(TransferMethod.STAGED_COPY, TransferMethod.parse("STAGED_COPY"));
    assertEquals(8, TransferMethod.values().length);
    assertThrows(IllegalArgumentException.class, () -> TransferMethod.parse("teleport"));
  }

  @Test
  void arrowVectorsBecomeColumnsAndNullsAreRejected() {
    try (BufferAllocator allocator = new RootAllocator();
         BigIntVector v = new BigIntVector("price", allocator);
         VarCharVector text = new VarCharVector("name", allocator)) {
      v.allocateNew(3);
      v.set(0, 7);
      v.set(2, 9);
      v.setValueCount(3);
      var e = assertThrows(IllegalArgumentException.class, () -> HostColumn.of(v));
      assertTrue(e.getMessage().contains("price") && e.getMessage().contains("1 nulls"), e.getMessage());
      v.set(1, 8);
      HostColumn c = HostColumn.of(v);
      assertEquals(ColumnType.INT64, c.type());
      assertEquals(3, c.rowCount());
      assertEquals(v.getDataBuffer().memoryAddress() + 16, c.addressOf(2));
      text.allocateNew();
      var wrongType = assertThrows(IllegalArgumentException.class, () -> HostColumn.of(text));
      assertTrue(wrongType.getMessage().contains("VARCHAR"), wrongType.getMessage());
    }
  }

  @Test
  void misalignedColumnIsRejected() {
    var e = assertThrows(IllegalArgumentException.class, () -> new HostColumn("c", ColumnType.INT64, 1003, 10));
    assertTrue(e.getMessage().contains("aligned"), e.getMessage());
  }
}
