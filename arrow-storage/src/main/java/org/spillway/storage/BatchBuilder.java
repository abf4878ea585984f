package org.spillway.storage;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Fills one record batch of a table column by column; obtained from {@link TableWriter#newBatch} and
 * handed back with {@link TableWriter#append}. One builder is used by one thread at a time.
 */
public final class BatchBuilder implements AutoCloseable {
  /**
   * Bytes reserved per string value when a text column's first single value is set ({@link #reserveText}); VarChar
   * data buffers still grow on demand.
   */
  private static final int INITIAL_BYTES_PER_STRING = 16;
  static final long[] POWERS_OF_TEN = new long[ColumnType.MAX_DECIMAL_PRECISION + 1];

  static {
    POWERS_OF_TEN[0] = 1;
    for (int i = 1; i < POWERS_OF_TEN.length; i++) {
      POWERS_OF_TEN[i] = POWERS_OF_TEN[i - 1] * 10;
    }
  }

  private final String tableName;
  private final TableSchema schema;
  private final int capacity;
  private final List<FieldVector> vectors;
  private final Consumer<BatchBuilder> onDiscard;
  /**
   * Per column, the distinct values its source declared for the non-NULL rows ({@link #declareDistinct}): a byte[][]
   * for text, a long[] for the other columns but DOUBLE.
   */
  private final Object[] declaredDistinct;
  /**
   * Per text column whose distinct values were declared with their rows, each row's index into them (unsigned 16
   * bits: a column of more values cannot become a dictionary), else null.
   */
  private final char[][] declaredRows;
  /**
   * Per column put with {@link #putDeclaredUtf8}, the rows whose text is not written yet (0: none, or written): the
   * vector holds their NULL bits only, and the declaration their values.
   */
  private final int[] unwrittenTextRows;
  /**
   * Per fixed-width column, the rows from which on its data bytes are undefined (not zeroed when allocated,
   * {@link #allocateWithUndefinedData}); the capacity where all are defined, and for text columns. Rows put with
   * {@link #putValues} or {@link #dataOf} are defined; anything that reads or sets single rows, and the rows counted by
   * {@link #setRowCount}, first zero the rest ({@link #defineData}), so that the vector is what Arrow's zeroing
   * allocation would have made of it.
   */
  private final int[] definedRows;
  /**
   * Per text column, the bytes a row its data buffer reserves once a single value is set, or 0 once reserved (and for
   * other columns). A bulk source puts a column's text in buffers of its size, or declares it without writing it
   * ({@link #putDeclaredUtf8}); a reservation made up front would only count against the staging limit.
   */
  private final int[] unreservedTextBytes;
  private int rowCount;
  private boolean released;

  BatchBuilder(String tableName, TableSchema schema, BufferAllocator allocator, int capacity,
      Consumer<BatchBuilder> onDiscard) {
    if (capacity < 1) {
      throw new StorageException("batch capacity must be positive, not " + capacity + " (table " + tableName + ")");
    }
    this.tableName = tableName;
    this.schema = schema;
    this.capacity = capacity;
    this.onDiscard = onDiscard;
    this.declaredDistinct = new Object[schema.size()];
    this.declaredRows = new char[schema.size()][];
    this.unwrittenTextRows = new int[schema.size()];
    this.definedRows = new int[schema.size()];
    Arrays.fill(definedRows, capacity);
    this.unreservedTextBytes = new int[schema.size()];
    this.vectors = new ArrayList<>(schema.size());
    try {
      for (ColumnDef column : schema.columns()) {
        Field field = ArrowFieldMapping.plainField(column);
        FieldVector vector = field.createVector(allocator);
        vectors.add(vector);
        if (vector instanceof VarCharVector strings) {
          strings.allocateNew(0, capacity);
          unreservedTextBytes[vectors.size() - 1] = Math.min(column.type().length(), INITIAL_BYTES_PER_STRING);
        } else {
          allocateWithUndefinedData((BaseFixedWidthVector) vector, allocator, capacity);
          definedRows[vectors.size() - 1] = 0;
        }
      }
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  /**
   * Allocates a fixed-width vector of {@code capacity} rows, all NULL, whose data bytes are left as the allocator
   * hands them over: a bulk source ({@link #putValues}, {@link #dataOf}) overwrites them all, so the zeroes that
   * {@code allocateNew} would write first are never read. As {@code allocateNew} does, the validity bits and the data
   * are slices of one allocation of their sizes rounded up to 8 bytes each, so that the memory a batch holds (which
   * the staging limit counts, rounded up by the allocator) stays as it was; only the validity slice is zeroed. The
   * vector holds its own references to the slices.
   */
  private static void allocateWithUndefinedData(BaseFixedWidthVector vector, BufferAllocator allocator, int capacity) {
    long validityBytes = roundUpTo8((capacity + 7L) >>> 3);
    long dataBytes = (long) capacity * vector.getTypeWidth();
    try (ArrowBuf both = allocator.buffer(validityBytes + roundUpTo8(dataBytes))) {
      ArrowBuf validity = both.slice(0, validityBytes);
      validity.setZero(0, validityBytes);
      // Arrow takes a validity buffer that is not empty as it is (it makes its own only for an empty one)
      vector.loadFieldBuffers(new ArrowFieldNode(capacity, capacity),
          Arrays.asList(validity, both.slice(validityBytes, dataBytes)));
    }
  }

  private static long roundUpTo8(long bytes) {
    return (bytes + 7) & ~7L;
  }

  /** Reserves the text bytes of column {@code col} ({@link #unreservedTextBytes}), if not yet reserved. */
  private void reserveText(int col) {
    if (unreservedTextBytes[col] > 0) {
      ((VarCharVector) vectors.get(col)).reallocDataBuffer((long) capacity * unreservedTextBytes[col]);
      unreservedTextBytes[col] = 0;
    }
  }

  /** Zeroes the undefined data bytes of column {@code col} ({@link #definedRows}), if any. */
  private void defineData(int col) {
    int from = definedRows[col];
    if (from < capacity) {
      long width = ((BaseFixedWidthVector) vectors.get(col)).getTypeWidth();
      vectors.get(col).getDataBuffer().setZero(from * width, (capacity - from) * width);
      definedRows[col] = capacity;
    }
  }

  public TableSchema schema() {
    return schema;
  }

  public int capacity() {
    return capacity;
  }

  /** Rows set by {@link #setRowCount}. */
  public int rowCount() {
    return rowCount;
  }

  public void setInt(int col, int row, int v) {
    dropDeclaration(col);
    switch (kindAt(col, row)) {
      case INTEGER -> ((IntVector) vectors.get(col)).set(row, v);
      case BIGINT -> ((BigIntVector) vectors.get(col)).set(row, v);
      default -> throw wrongSetter(col, "setInt");
    }
  }

  public void setLong(int col, int row, long v) {
    dropDeclaration(col);
    switch (kindAt(col, row)) {
      case BIGINT -> ((BigIntVector) vectors.get(col)).set(row, v);
      case INTEGER -> {
        if (v != (int) v) {
          throw invalid(col, row, "value " + v + " does not fit INTEGER");
        }
        ((IntVector) vectors.get(col)).set(row, (int) v);
      }
      default -> throw wrongSetter(col, "setLong");
    }
  }

  public void setDouble(int col, int row, double v) {
    if (kindAt(col, row) != ColumnKind.DOUBLE) {
      throw wrongSetter(col, "setDouble");
    }
    ((Float8Vector) vectors.get(col)).set(row, v);
  }

  /** Sets a DECIMAL by its unscaled value (e.g. 1234 for 12.34 in DECIMAL(15,2)). */
  public void setDecimal(int col, int row, long unscaled) {
    dropDeclaration(col);
    if (kindAt(col, row) != ColumnKind.DECIMAL) {
      throw wrongSetter(col, "setDecimal");
    }
    int precision = schema.column(col).type().precision();
    if (precision < ColumnType.MAX_DECIMAL_PRECISION
        && (unscaled >= POWERS_OF_TEN[precision] || unscaled <= -POWERS_OF_TEN[precision])) {
      throw invalid(col, row, "unscaled value " + unscaled + " has more than " + precision + " digits");
    }
    ((BigIntVector) vectors.get(col)).set(row, unscaled);
  }

  /** Sets a DECIMAL exactly; fails if the value needs more fractional digits or precision than the column. */
  public void setDecimal(int col, int row, BigDecimal v) {
    if (v == null) {
      setNull(col, row);
      return;
    }
    ColumnType type = schema.column(col).type();
    if (kindAt(col, row) != ColumnKind.DECIMAL) {
      throw wrongSetter(col, "setDecimal");
    }
    long unscaled;
    try {
      unscaled = ValueConversions.unscaledExact(v, type);
    } catch (ArithmeticException e) {
      throw invalid(col, row, "value " + v.toPlainString() + " does not fit " + type);
    }
    setDecimal(col, row, unscaled);
  }

  /** Sets a DATE as days since 1970-01-01. */
  public void setDate(int col, int row, int epochDay) {
    dropDeclaration(col);
    if (kindAt(col, row) != ColumnKind.DATE) {
      throw wrongSetter(col, "setDate");
    }
    ((DateDayVector) vectors.get(col)).set(row, epochDay);
  }

  /** Sets a CHAR/VARCHAR value; null sets SQL NULL; fails if the value is longer than the declared length. */
  public void setString(int col, int row, String v) {
    if (v == null) {
      setNull(col, row);
      return;
    }
    if (!kindAt(col, row).isText()) {
      throw wrongSetter(col, "setString");
    }
    ColumnType type = schema.column(col).type();
    int excess = ValueConversions.excessLength(type, v);
    if (excess >= 0) {
      throw invalid(col, row, "value of length " + excess + " exceeds " + type);
    }
    dropDeclaration(col);
    ((VarCharVector) vectors.get(col)).setSafe(row, v.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Sets a CHAR/VARCHAR value from its UTF-8 bytes (the buffer's remaining ones, which are not consumed), as
   * {@link #setString} does: ASCII is copied as it is; other text goes through a String, which replaces malformed
   * sequences as decoding does. Fails if the value is longer than the declared length.
   */
  public void setUtf8(int col, int row, ByteBuffer utf8) {
    if (!kindAt(col, row).isText()) {
      throw wrongSetter(col, "setUtf8");
    }
    int start = utf8.position();
    int length = utf8.remaining();
    if (!isAscii(utf8, start, length)) {
      setString(col, row, StandardCharsets.UTF_8.decode(utf8.duplicate()).toString());
      return;
    }
    ColumnType type = schema.column(col).type();
    if (length > type.length()) {
      throw invalid(col, row, "value of length " + length + " exceeds " + type);
    }
    dropDeclaration(col);
    ((VarCharVector) vectors.get(col)).setSafe(row, utf8, start, length);
  }

  /** Sets a CHAR/VARCHAR value from its UTF-8 bytes, as {@link #setUtf8(int, int, ByteBuffer)} does. */
  public void setUtf8(int col, int row, byte[] utf8) {
    if (!kindAt(col, row).isText()) {
      throw wrongSetter(col, "setUtf8");
    }
    for (byte b : utf8) {
      if (b < 0) {
        setString(col, row, new String(utf8, StandardCharsets.UTF_8));
        return;
      }
    }
    ColumnType type = schema.column(col).type();
    if (utf8.length > type.length()) {
      throw invalid(col, row, "value of length " + utf8.length + " exceeds " + type);
    }
    dropDeclaration(col);
    ((VarCharVector) vectors.get(col)).setSafe(row, utf8);
  }

  private static boolean isAscii(ByteBuffer bytes, int start, int length) {
    if (bytes.hasArray()) {
      // the array itself: a heap buffer's get(i) checks its bounds on every byte
      return Ascii.isAscii(bytes.array(), bytes.arrayOffset() + start, length);
    }
    for (int i = start; i < start + length; i++) {
      if (bytes.get(i) < 0) {
        return false;
      }
    }
    return true;
  }

  /**
   * Column {@code col}'s Arrow vector (plain layout: Int, BigInt for BIGINT and DECIMAL, Float8, DateDay, VarChar),
   * for a source that fills a column in bulk. Values written there bypass the setters' checks, so the source must
   * keep them itself (decimal precision, text length and well-formed UTF-8); NOT NULL is still checked at append.
   */
  public FieldVector vector(int col) {
    kindAt(col, 0);
    writeDeclaredText(col);
    return vectors.get(col);
  }

  /**
   * Sets rows 0..rows-1 of a fixed-width column at once from their little-endian bytes (4 per INTEGER or DATE, 8 per
   * BIGINT, DECIMAL or DOUBLE), for a source that decodes a column in bulk; {@code nulls} (null: none) marks the NULL
   * rows, whose bytes are ignored. As with {@link #vector}, the source keeps the setters' checks (decimal digits).
   */
  public void putValues(int col, byte[] littleEndian, boolean[] nulls, int rows) {
    checkedKind(col, Math.max(rows - 1, 0));
    if (!(vectors.get(col) instanceof BaseFixedWidthVector vector)) {
      throw wrongSetter(col, "putValues");
    }
    long bytes = (long) rows * vector.getTypeWidth();
    if (bytes > littleEndian.length) {
      throw new StorageException("putValues: " + littleEndian.length + " bytes hold fewer than " + rows + " values of "
          + "column " + schema.column(col).name() + " of table " + tableName);
    }
    dataOf(col, rows).put(0, littleEndian, 0, (int) bytes);
    putNulls(col, nulls, rows);
  }

  /**
   * The data of rows 0..rows-1 of a fixed-width column, as a little-endian buffer over the vector's own memory, for a
   * source that decodes a column in bulk straight into it (instead of into an array that {@link #putValues} then
   * copies): the source must write every one of the rows (a NULL row's bytes as zeros, as the setters leave them) and
   * then give the NULLs with {@link #putNulls}. As with {@link #vector}, the source keeps the setters' checks.
   */
  public ByteBuffer dataOf(int col, int rows) {
    checkedKind(col, Math.max(rows - 1, 0));
    if (!(vectors.get(col) instanceof BaseFixedWidthVector vector)) {
      throw wrongSetter(col, "dataOf");
    }
    dropDeclaration(col);
    definedRows[col] = Math.max(definedRows[col], rows);
    return vector.getDataBuffer().nioBuffer(0, rows * vector.getTypeWidth()).order(ByteOrder.LITTLE_ENDIAN);
  }

  /**
   * Sets which of rows 0..rows-1 of a fixed-width column are NULL ({@code nulls}; null: none), whose values a bulk
   * source wrote ({@link #dataOf}).
   */
  public void putNulls(int col, boolean[] nulls, int rows) {
    checkBulk(col, rows, nulls);
    if (!(vectors.get(col) instanceof BaseFixedWidthVector vector)) {
      throw wrongSetter(col, "putNulls");
    }
    setValidity(vector.getValidityBuffer(), nulls, rows);
  }

  /**
   * Sets rows 0..rows-1 of a VARCHAR column without a length at once: row i is {@code data}'s bytes from offset i to
   * offset i+1, the offsets being {@code rows + 1} little-endian ints from 0; {@code nulls} (null: none) marks the NULL
   * rows, whose offsets must not advance. The bytes must be well-formed UTF-8, as {@link #setUtf8} would store them.
   */
  public void putUtf8(int col, byte[] littleEndianOffsets, byte[] data, boolean[] nulls, int rows) {
    checkBulk(col, rows, nulls);
    ColumnType type = schema.column(col).type();
    if (!type.kind().isText() || type.length() != ColumnType.UNBOUNDED_LENGTH) {
      throw wrongSetter(col, "putUtf8");
    }
    dropDeclaration(col);
    VarCharVector vector = (VarCharVector) vectors.get(col);
    int length = (int) ByteBuffer.wrap(littleEndianOffsets).order(ByteOrder.LITTLE_ENDIAN).getInt(rows * 4);
    if (vector.getDataBuffer().capacity() < length && vector.getLastSet() < rows) {
      // buffers of the size needed, instead of doubling the data buffer (each time copying, and first touching,
      // bytes that are overwritten next); where a value was set beyond these rows, the buffers grow as before
      vector.clear();
      vector.allocateNew(length, capacity);
    }
    while (vector.getDataBuffer().capacity() < length) {
      vector.reallocDataBuffer();
    }
    vector.getOffsetBuffer().setBytes(0, littleEndianOffsets, 0, (rows + 1L) * 4);
    vector.getDataBuffer().setBytes(0, data, 0, length);
    setValidity(vector.getValidityBuffer(), nulls, rows);
    vector.setLastSet(rows - 1);  // else setValueCount would take the rows for unset ones and rewrite their offsets
  }

  /**
   * Sets rows 0..rows-1 of a VARCHAR column without a length at once, as {@link #putUtf8} of their text followed by
   * {@link #declareDistinct(int, byte[][], char[])} would: non-NULL row i holds {@code values[valueOfRow[i]]}
   * (well-formed UTF-8, as the vector stores it); {@code nulls} (null: none) marks the NULL rows. The text itself is
   * written only if something needs it (see {@link DeclaredText}): a source that decodes a dictionary need not copy
   * an entry into every row of a column that the commit encodes from the declaration anyway.
   */
  public void putDeclaredUtf8(int col, byte[][] values, char[] valueOfRow, boolean[] nulls, int rows) {
    checkBulk(col, rows, nulls);
    ColumnType type = schema.column(col).type();
    if (!type.kind().isText() || type.length() != ColumnType.UNBOUNDED_LENGTH) {
      throw wrongSetter(col, "putDeclaredUtf8");
    }
    if (valueOfRow.length < rows) {
      throw new StorageException("putDeclaredUtf8: " + valueOfRow.length + " row indexes for " + rows + " rows");
    }
    dropDeclaration(col);
    VarCharVector vector = (VarCharVector) vectors.get(col);
    setValidity(vector.getValidityBuffer(), nulls, rows);
    // every row empty until the text is written, and marked set: else setValueCount would make each row empty
    // one offset write at a time
    vector.getOffsetBuffer().setZero(0, (rows + 1L) * BaseVariableWidthVector.OFFSET_WIDTH);
    vector.setLastSet(rows - 1);
    declareDistinct(col, values, valueOfRow);
    unwrittenTextRows[col] = rows;
  }

  /**
   * Declares that the non-NULL values of text column {@code col} are exactly {@code values} (a value may be listed
   * twice), as the vector stores them. A source that decodes a dictionary knows them, and the statistics then take
   * each value once instead of every row. Setting a value of the column afterwards (other than through
   * {@link #vector}, which the source must not do) drops the declaration.
   */
  public void declareDistinct(int col, byte[][] values) {
    if (!checkedKind(col, 0).isText()) {
      throw wrongSetter(col, "declareDistinct(byte[][])");
    }
    declaredDistinct[col] = values;
    declaredRows[col] = null;
  }

  /**
   * As {@link #declareDistinct(int, byte[][])} for an INTEGER, BIGINT, DECIMAL (unscaled) or DATE (days) column:
   * its non-NULL values are exactly {@code values}.
   */
  public void declareDistinct(int col, long[] values) {
    ColumnKind kind = checkedKind(col, 0);
    if (kind.isText() || kind == ColumnKind.DOUBLE) {
      throw wrongSetter(col, "declareDistinct(long[])");
    }
    declaredDistinct[col] = values;
  }

  /**
   * As {@link #declareDistinct(int, byte[][])}, also telling each row's value: non-NULL row i holds
   * {@code values[valueOfRow[i]]} (the entries of NULL rows mean nothing). The commit then finds the dictionary code
   * of each value once instead of looking up every row's bytes. At most 65,536 values.
   */
  public void declareDistinct(int col, byte[][] values, char[] valueOfRow) {
    if (values.length > Character.MAX_VALUE + 1) {
      throw new StorageException("declareDistinct: " + values.length + " values are more than a row's index holds");
    }
    declareDistinct(col, values);
    declaredRows[col] = valueOfRow;
  }

  /** What {@link #declareDistinct} declared for column {@code col} (a byte[][] or a long[]), or null. */
  Object declaredDistinct(int col) {
    return declaredDistinct[col];
  }

  /** Each row's index into the declared distinct values of column {@code col}, where declared, else null. */
  char[] declaredRows(int col) {
    return declaredRows[col];
  }

  /**
   * The rows of column {@code col} put with {@link #putDeclaredUtf8} whose text is not written into the vector (0:
   * none); whoever needs the bytes writes them with {@link DeclaredText#write}.
   */
  int unwrittenTextRows(int col) {
    return unwrittenTextRows[col];
  }

  /** Writes the text of the rows put with {@link #putDeclaredUtf8}, before anything else reads or sets the vector. */
  private void writeDeclaredText(int col) {
    if (unwrittenTextRows[col] > 0) {
      DeclaredText.write((VarCharVector) vectors.get(col), (byte[][]) declaredDistinct[col], declaredRows[col],
          unwrittenTextRows[col]);
      unwrittenTextRows[col] = 0;
    }
  }

  /** A value set other than through the declaration's source: the declared values no longer describe the column. */
  private void dropDeclaration(int col) {
    writeDeclaredText(col);
    declaredDistinct[col] = null;
    declaredRows[col] = null;
  }

  private void checkBulk(int col, int rows, boolean[] nulls) {
    if (rows > 0) {
      checkedKind(col, rows - 1);
    }
    if (nulls != null && !schema.column(col).type().nullable()) {
      for (int row = 0; row < rows; row++) {
        if (nulls[row]) {
          throw invalid(col, row, "NULL in a NOT NULL column");
        }
      }
    }
  }

  private static void setValidity(ArrowBuf validity, boolean[] nulls, int rows) {
    byte[] bits = new byte[(rows + 7) >>> 3];
    if (nulls == null) {
      Arrays.fill(bits, (byte) -1);
      if ((rows & 7) != 0) {
        bits[bits.length - 1] = (byte) ((1 << (rows & 7)) - 1);
      }
    } else {
      for (int row = 0; row < rows; row++) {
        if (!nulls[row]) {
          bits[row >>> 3] |= (byte) (1 << (row & 7));
        }
      }
    }
    validity.setBytes(0, bits, 0, bits.length);
  }

  public void setNull(int col, int row) {
    kindAt(col, row);
    if (!schema.column(col).type().nullable()) {
      throw invalid(col, row, "NULL in a NOT NULL column");
    }
    vectors.get(col).setNull(row);
  }

  /** Declares how many rows (0..capacity) the batch holds; rows not set are NULL. */
  public void setRowCount(int rows) {
    checkOpen();
    if (rows < 0 || rows > capacity) {
      throw new StorageException("row count " + rows + " is outside 0.." + capacity + " for a batch of table " + tableName);
    }
    for (int col = 0; col < vectors.size(); col++) {
      if (definedRows[col] < rows) {
        defineData(col);
      }
      vectors.get(col).setValueCount(rows);
    }
    rowCount = rows;
  }

  /** Releases the buffers of a batch that will not be appended; no-op after append. */
  @Override
  public void close() {
    if (!released) {
      released = true;
      vectors.forEach(FieldVector::close);
      onDiscard.accept(this);
    }
  }

  /** Checks NOT NULL columns, then hands the vectors to a root that now owns them. */
  VectorSchemaRoot detach() {
    checkOpen();
    for (int col = 0; col < vectors.size(); col++) {
      FieldVector vector = vectors.get(col);
      if (!schema.column(col).type().nullable() && vector.getNullCount() > 0) {
        int row = 0;
        while (!vector.isNull(row)) {
          row++;
        }
        throw invalid(col, row, "row was never set in a NOT NULL column");
      }
    }
    released = true;
    return new VectorSchemaRoot(new ArrayList<>(vectors));
  }

  boolean isReleased() {
    return released;
  }

  /** The kind of column {@code col}, checking the column and row; its data defined, as a single row's access needs. */
  private ColumnKind kindAt(int col, int row) {
    ColumnKind kind = checkedKind(col, row);
    defineData(col);
    reserveText(col);
    return kind;
  }

  /**
   * As {@link #kindAt}, for a bulk setter that defines the rows itself and a declaration, which sets no row: the data
   * is left as it is.
   */
  private ColumnKind checkedKind(int col, int row) {
    checkOpen();
    if (col < 0 || col >= vectors.size()) {
      throw new StorageException("column index " + col + " is outside 0.." + (vectors.size() - 1) + " of table " + tableName);
    }
    if (row < 0 || row >= capacity) {
      throw new StorageException("row " + row + " is outside the batch capacity " + capacity + " (table " + tableName
          + ", column " + schema.column(col).name() + ")");
    }
    return schema.column(col).type().kind();
  }

  private void checkOpen() {
    if (released) {
      throw new StorageException("batch of table " + tableName + " was already appended or closed");
    }
  }

  private StorageException wrongSetter(int col, String setter) {
    ColumnDef column = schema.column(col);
    return new StorageException(setter + " does not apply to column " + column.name() + " " + column.type()
        + " of table " + tableName);
  }

  private StorageException invalid(int col, int row, String reason) {
    ColumnDef column = schema.column(col);
    return new StorageException("table " + tableName + ", column " + column.name() + " " + column.type()
        + ", batch row " + row + ": " + reason);
  }
}
