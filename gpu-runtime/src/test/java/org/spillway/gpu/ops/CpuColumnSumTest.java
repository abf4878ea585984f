package org.spillway.gpu.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.spillway.gpu.RandomColumns;
import org.spillway.gpu.transfer.ColumnType;
import org.spillway.gpu.transfer.HostColumn;

/** The CPU backend against a plain sequential loop, on fresh random data of ragged sizes. */
class CpuColumnSumTest {
  @ParameterizedTest
  @ValueSource(longs = {0, 1, 31, 1_048_575, 3 * 1_048_576 + 17})
  void matchesSequentialSum(long rows) {
    try (BufferAllocator allocator = new RootAllocator();
         CpuColumnSum cpu = new CpuColumnSum(3)) {
      for (ColumnType type : ColumnType.VALUES) {
        try (ArrowBuf buf = allocator.buffer(Math.max(8, rows * type.width()))) {
          HostColumn column = RandomColumns.fill(buf, 0, type, rows, System.nanoTime());
          SumResult result = cpu.sum(column);
          long integer = 0;
          double floating = 0;
          for (long i = 0; i < rows; i++) {
            switch (type) {
              case INT32 -> integer += buf.getInt(i * 4);
              case INT64 -> integer += buf.getLong(i * 8);
              case FLOAT64 -> floating += buf.getDouble(i * 8);
            }
          }
          assertEquals(rows, result.rowCount());
          assertEquals(integer, result.integerSum(), type + " " + rows);
          assertEquals(floating, result.floatSum(), 1e-9 * Math.max(1, rows * 1e6), type + " " + rows);
        }
      }
    }
  }
}
