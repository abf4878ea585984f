package org.spillway.storage.imports;

/**
 * The arrays a {@link ParquetChunkDecoder} decodes one batch column into before it hands them to the batch in one
 * copy, shared by all the decoders of a thread: a decoder is made per column chunk, and arrays of its own grew from
 * small for every chunk (for a text column several times, each growth a fresh array to clear and copy), while a
 * thread decodes one batch column at a time. The arrays only grow; they live as long as the thread (the import's
 * pool threads end with the import).
 */
final class DecodeScratch {
  private static final ThreadLocal<DecodeScratch> OF_THREAD = ThreadLocal.withInitial(DecodeScratch::new);

  /** Per row: NULL or not; the values (8 bytes a row) or text offsets (4 bytes a row, one more); dictionary ids. */
  boolean[] nulls = new boolean[0];
  byte[] bytes = new byte[0];
  int[] rowIds = new int[0];
  /** The text of a batch column, the ids of a page run, the definition levels of a page run; the decoders grow them. */
  byte[] text = new byte[1 << 16];
  int[] ids = new int[0];
  int[] levels = new int[0];

  private DecodeScratch() {}

  /** The calling thread's arrays, the per-row ones holding at least {@code rows} rows. */
  static DecodeScratch forRows(int rows) {
    DecodeScratch scratch = OF_THREAD.get();
    if (scratch.nulls.length < rows) {
      scratch.nulls = new boolean[rows];
      scratch.bytes = new byte[(rows + 1) * 8];
      scratch.rowIds = new int[rows];
    }
    return scratch;
  }
}
