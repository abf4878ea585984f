package org.spillway.gpu.transfer;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;

/**
 * A fixed-width column in host memory (usually an Arrow vector's data buffer): what a transfer method
 * streams to the GPU in row chunks. It does not own the memory; the Arrow buffer must outlive its use.
 */
public record HostColumn(String name, ColumnType type, long address, long rowCount) {
  public HostColumn {
    if (rowCount < 0) {
      throw new IllegalArgumentException("column " + name + ": negative row count " + rowCount);
    }
    if (rowCount > 0 && address % type.width() != 0) {
      throw new IllegalArgumentException("column " + name + ": address 0x" + Long.toHexString(address)
          + " is not aligned to its " + type.width() + "-byte elements");
    }
  }

  /** The first {@code rowCount} values of {@code data}, which must hold them. */
  public static HostColumn of(String name, ColumnType type, ArrowBuf data, long rowCount) {
    long needed = type.bytes(rowCount);
    if (needed > data.capacity()) {
      throw new IllegalArgumentException("column " + name + ": " + rowCount + " " + type + " rows need " + needed
          + " bytes but the buffer holds " + data.capacity());
    }
    return new HostColumn(name, type, data.memoryAddress(), rowCount);
  }

  /** The data buffer of an Arrow INT, BIGINT or FLOAT8 vector without nulls (validity is not streamed). */
  public static HostColumn of(FieldVector vector) {
    ColumnType type;
    if (vector instanceof IntVector) {
      type = ColumnType.INT32;
    } else if (vector instanceof BigIntVector) {
      type = ColumnType.INT64;
    } else if (vector instanceof Float8Vector) {
      type = ColumnType.FLOAT64;
    } else {
      throw new IllegalArgumentException("column " + vector.getName() + ": " + vector.getMinorType()
          + " is not a GPU column type (INT, BIGINT, FLOAT8)");
    }
    if (vector.getNullCount() > 0) {
      throw new IllegalArgumentException("column " + vector.getName() + " has " + vector.getNullCount()
          + " nulls; GPU operators stream only the data buffer so far");
    }
    return of(vector.getName(), type, vector.getDataBuffer(), vector.getValueCount());
  }

  /** The validity bitmap of the first {@code rowCount} rows of an Arrow vector (see ColumnType.VALIDITY). */
  public static HostColumn validity(FieldVector vector, long rowCount) {
    return of(vector.getName() + " validity", ColumnType.VALIDITY, vector.getValidityBuffer(), rowCount);
  }

  public long byteLength() {
    return type.bytes(rowCount);
  }

  /** Bytes of {@code rows} rows of this column. */
  public long bytes(long rows) {
    return type.bytes(rows);
  }

  /** Address of row {@code row} (a multiple of 8 for VALIDITY). */
  public long addressOf(long row) {
    return address + type.offset(row);
  }
}
