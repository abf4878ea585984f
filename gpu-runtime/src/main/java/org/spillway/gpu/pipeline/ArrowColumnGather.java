package org.spillway.gpu.pipeline;

import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;
import org.spillway.gpu.vector.IndexedColumns;
import java.util.Arrays;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;

/**
 * One column of a table stored as several Arrow batches, read at arbitrary row ids (the row numbers of the
 * batches laid end to end): what late materialization needs after a join has paired row ids. Row id -1
 * reads as NULL (the missing side of an outer join's unmatched row).
 */
public final class ArrowColumnGather {
  /** Row ids per entry of the block index: batch lookup is one array read and rarely a step or two. */
  private static final int BLOCK_SHIFT = 10;
  /** Row ids per task of a gather of at least {@link ColumnVector#PARALLEL_ROWS}, which runs on all cores. */
  private static final int GATHER_CHUNK = 1 << 16;

  private final List<FieldVector> batches;
  private final ExprType type;
  private final long[] starts;
  private final int[] blockBatch;
  private final long[] addresses;
  private final boolean anyNull;

  /** The column {@code batches} (one vector per batch, in order) read as {@code type}. */
  public ArrowColumnGather(List<FieldVector> batches, ExprType type) {
    this.batches = List.copyOf(batches);
    this.type = type;
    this.starts = new long[batches.size() + 1];
    this.addresses = new long[batches.size()];
    boolean nulls = false;
    int width = fixedWidth(type);
    for (int b = 0; b < batches.size(); b++) {
      FieldVector v = batches.get(b);
      starts[b + 1] = starts[b] + v.getValueCount();
      nulls |= v.getNullCount() > 0;
      if (type.kind() == ExprType.Kind.BOOLEAN && !(v instanceof BitVector)
          || type.kind() == ExprType.Kind.TEXT && !(v instanceof VarCharVector)) {
        throw new IllegalArgumentException("column " + v.getField() + " is a " + v.getClass().getSimpleName()
            + ", not a vector of " + type);
      }
      if (width > 0) {
        if (!(v instanceof BaseFixedWidthVector fixed) || fixed.getTypeWidth() != width) {
          throw new IllegalArgumentException("column " + v.getField() + " is not a " + width + "-byte vector as "
              + type + " needs");
        }
        addresses[b] = fixed.getDataBuffer().memoryAddress();
      }
    }
    if (starts[batches.size()] > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("column " + (batches.isEmpty() ? "" : batches.get(0).getName()) + " has "
          + starts[batches.size()] + " rows; row ids are ints");
    }
    this.anyNull = nulls;
    int rows = (int) starts[batches.size()];
    this.blockBatch = new int[(rows >>> BLOCK_SHIFT) + 1];
    int b = 0;
    for (int block = 0; block < blockBatch.length; block++) {
      long first = (long) block << BLOCK_SHIFT;
      while (b < batches.size() - 1 && starts[b + 1] <= first) {
        b++;
      }
      blockBatch[block] = b;
    }
  }

  /** Rows of all batches together. */
  public int rows() {
    return (int) starts[batches.size()];
  }

  /** The values at {@code ids[0 .. count-1]} in that order; id -1 gives NULL. */
  public ColumnVector gather(int[] ids, int count) {
    if (count < ColumnVector.PARALLEL_ROWS) {
      return gatherRange(ids, count);
    }
    ColumnVector[] parts = new ColumnVector[(count + GATHER_CHUNK - 1) / GATHER_CHUNK];
    IntStream.range(0, parts.length).parallel().forEach(p -> {
      int from = p * GATHER_CHUNK;
      int n = Math.min(GATHER_CHUNK, count - from);
      parts[p] = gatherRange(Arrays.copyOfRange(ids, from, from + n), n);
    });
    return ColumnVector.concat(type, Arrays.asList(parts));
  }

  private ColumnVector gatherRange(int[] ids, int count) {
    boolean[] nulls = null;
    int[] batchOf = new int[count];
    for (int i = 0; i < count; i++) {
      int id = ids[i];
      if (id < 0) {
        nulls = nulls == null ? new boolean[count] : nulls;
        nulls[i] = true;
        batchOf[i] = -1;
        continue;
      }
      if (id >= starts[batches.size()]) {
        throw new IndexOutOfBoundsException("row id " + id + " outside the " + rows() + " rows of "
            + batches.get(0).getName());
      }
      int b = blockBatch[id >>> BLOCK_SHIFT];
      while (starts[b + 1] <= id) {
        b++;
      }
      batchOf[i] = b;
      if (anyNull && batches.get(b).isNull((int) (id - starts[b]))) {
        nulls = nulls == null ? new boolean[count] : nulls;
        nulls[i] = true;
      }
    }
    return read(ids, batchOf, nulls, count);
  }

  private ColumnVector read(int[] ids, int[] batchOf, boolean[] nulls, int count) {
    switch (type.kind()) {
      case INT32, DATE, STRING -> {
        long[] out = new long[count];
        for (int i = 0; i < count; i++) {
          int b = batchOf[i];
          out[i] = b < 0 || nulls != null && nulls[i] ? 0
              : MemoryUtil.getInt(addresses[b] + ((ids[i] - starts[b]) << 2));
        }
        return ColumnVector.ofLongs(type, out, nulls, count);
      }
      case INT64, DECIMAL -> {
        long[] out = new long[count];
        for (int i = 0; i < count; i++) {
          int b = batchOf[i];
          out[i] = b < 0 || nulls != null && nulls[i] ? 0
              : MemoryUtil.getLong(addresses[b] + ((ids[i] - starts[b]) << 3));
        }
        return ColumnVector.ofLongs(type, out, nulls, count);
      }
      case FLOAT64 -> {
        double[] out = new double[count];
        for (int i = 0; i < count; i++) {
          int b = batchOf[i];
          out[i] = b < 0 || nulls != null && nulls[i] ? 0
              : Double.longBitsToDouble(MemoryUtil.getLong(addresses[b] + ((ids[i] - starts[b]) << 3)));
        }
        return ColumnVector.ofDoubles(out, nulls, count);
      }
      case BOOLEAN -> {
        long[] out = new long[count];
        for (int i = 0; i < count; i++) {
          int b = batchOf[i];
          out[i] = b < 0 || nulls != null && nulls[i] ? 0
              : ((BitVector) batches.get(b)).get((int) (ids[i] - starts[b]));
        }
        return ColumnVector.ofLongs(type, out, nulls, count);
      }
      case TEXT -> {
        Object[] out = new Object[count];
        VarCharStrings[] texts = new VarCharStrings[batches.size()];
        for (int i = 0; i < count; i++) {
          int b = batchOf[i];
          if (b >= 0 && (nulls == null || !nulls[i])) {
            if (texts[b] == null) {
              texts[b] = new VarCharStrings((VarCharVector) batches.get(b));
            }
            out[i] = texts[b].get((int) (ids[i] - starts[b]));
          }
        }
        return ColumnVector.ofObjects(type, out, nulls, count);
      }
      default -> throw new IllegalStateException("cannot gather " + type);
    }
  }

  /** Every row, batch after batch (read sequentially, not through row ids; batches on all cores when large). */
  public ColumnVector all() {
    ColumnVector[] parts = new ColumnVector[batches.size()];
    IntStream loads = IntStream.range(0, parts.length);
    (rows() >= ColumnVector.PARALLEL_ROWS ? loads.parallel() : loads).forEach(b ->
        parts[b] = ArrowColumnLoader.load(batches.get(b), type, 0, null, batches.get(b).getValueCount()));
    return parts.length == 0 ? ColumnVector.constant(type, null, 0) : ColumnVector.concat(type, Arrays.asList(parts));
  }

  /** Whether {@link #writeLongs} can write this column: integral values (or dictionary codes) without NULLs. */
  public boolean writesLongs() {
    return !anyNull && switch (type.kind()) {
      case INT32, DATE, STRING, INT64, DECIMAL -> true;
      default -> false;
    };
  }

  /**
   * Per batch, the region of fixed-width values that {@link #writeLongs} reads (only where it {@link #writesLongs}):
   * what a GPU column cache holds of the column.
   */
  public List<IndexedColumns.HeldValues> heldValues() {
    int width = fixedWidth(type);
    List<IndexedColumns.HeldValues> held = new ArrayList<>();
    for (FieldVector v : batches) {
      held.add(new IndexedColumns.HeldValues(v.getDataBuffer(), v.getDataBuffer().memoryAddress(), width,
          v.getValueCount()));
    }
    return held;
  }

  /** Writes rows {@code from .. from+n-1} as 64-bit integers at {@code address} (only where {@link #writesLongs}). */
  public void writeLongs(int from, int n, long address) {
    int b = blockBatch[from >>> BLOCK_SHIFT];
    while (starts[b + 1] <= from) {
      b++;
    }
    boolean narrow = fixedWidth(type) == 4;
    for (int done = 0; done < n; b++) {
      int row = (int) (from + done - starts[b]);
      int count = (int) Math.min(n - done, starts[b + 1] - starts[b] - row);
      long source = addresses[b];
      long target = address + done * 8L;
      if (narrow) {
        for (int i = 0; i < count; i++) {
          MemoryUtil.putLong(target + i * 8L, MemoryUtil.getInt(source + ((long) (row + i) << 2)));
        }
      } else {
        MemoryUtil.copyMemory(source + ((long) row << 3), target, count * 8L);
      }
      done += count;
    }
  }

  /** Bytes per value of the fixed-width kinds read straight from the data buffer, else 0. */
  private static int fixedWidth(ExprType type) {
    return switch (type.kind()) {
      case INT32, DATE, STRING -> 4;
      case INT64, DECIMAL, FLOAT64 -> 8;
      default -> 0;
    };
  }
}
