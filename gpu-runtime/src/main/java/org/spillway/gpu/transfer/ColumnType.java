package org.spillway.gpu.transfer;

/** Fixed-width column types the GPU operators read, with their element width in bytes. */
public enum ColumnType {
  INT32(4),
  INT64(8),
  FLOAT64(8);

  private final int width;

  ColumnType(int width) {
    this.width = width;
  }

  public int width() {
    return width;
  }
}
