package org.spillway.gpu.join;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.spillway.gpu.device.MemoryGuard;

/**
 * An append-only column of row indices stored as a list of int chunks, so it grows without copying and
 * can exceed one Java array; per-thread columns concatenate without copying either.
 */
public final class RowIdColumn {
  static final int CHUNK_ROWS = 1 << 16;

  private final List<int[]> chunks = new ArrayList<>();
  private final List<Integer> lengths = new ArrayList<>();
  private long[] starts = new long[] {0};
  private int[] current;
  private int fill;

  /** Appends one row index. */
  public void add(int row) {
    if (current == null || fill == current.length) {
      seal();
      // A join's output grows chunk by chunk inside the join: check each chunk, before the heap runs out.
      long rows = size();
      MemoryGuard.require(CHUNK_ROWS * (long) Integer.BYTES, () -> "a join's output beyond " + rows + " rows");
      current = new int[CHUNK_ROWS];
    }
    current[fill++] = row;
  }

  /** Appends the first {@code count} row indices of {@code rows}, which the column takes over (no copy). */
  public void addAll(int[] rows, int count) {
    seal();
    current = rows;
    fill = count;
    seal();
  }

  private void seal() {
    if (current != null && fill > 0) {
      chunks.add(current);
      lengths.add(fill);
      starts = Arrays.copyOf(starts, chunks.size() + 1);
      starts[chunks.size()] = starts[chunks.size() - 1] + fill;
    }
    current = null;
    fill = 0;
  }

  /** Concatenates columns (each written by one thread) into one; the inputs must not be used afterwards. */
  public static RowIdColumn concat(List<RowIdColumn> parts) {
    RowIdColumn out = new RowIdColumn();
    for (RowIdColumn part : parts) {
      part.seal();
      out.chunks.addAll(part.chunks);
      out.lengths.addAll(part.lengths);
    }
    out.starts = new long[out.chunks.size() + 1];
    for (int c = 0; c < out.chunks.size(); c++) {
      out.starts[c + 1] = out.starts[c] + out.lengths.get(c);
    }
    return out;
  }

  /** Number of row indices. */
  public long size() {
    return starts[chunks.size()] + fill;
  }

  /** The row index at {@code position}. */
  public int get(long position) {
    if (position < 0 || position >= size()) {
      throw new IndexOutOfBoundsException("position " + position + " outside column of " + size() + " rows");
    }
    int c = Arrays.binarySearch(starts, 0, chunks.size() + 1, position);
    c = c >= 0 ? c : -c - 2;
    if (c == chunks.size()) {
      return current[(int) (position - starts[c])];
    }
    return chunks.get(c)[(int) (position - starts[c])];
  }

  /** Copies the column into one array; fails if it holds more than an array can. */
  public int[] toArray() {
    long n = size();
    if (n > Integer.MAX_VALUE - 8) {
      throw new IllegalStateException("column of " + n + " rows does not fit one Java array; read it by chunk");
    }
    int[] out = new int[(int) n];
    int at = 0;
    for (int c = 0; c < chunks.size(); c++) {
      System.arraycopy(chunks.get(c), 0, out, at, lengths.get(c));
      at += lengths.get(c);
    }
    if (current != null) {
      System.arraycopy(current, 0, out, at, fill);
    }
    return out;
  }
}
