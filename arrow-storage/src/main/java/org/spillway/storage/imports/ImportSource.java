package org.spillway.storage.imports;

import java.nio.file.Path;
import org.spillway.storage.BatchBuilder;
import org.spillway.storage.TableSchema;

/**
 * One input file opened for an import: its schema, and the pieces it is read in (a Parquet row group, an Arrow
 * record batch), each readable on its own thread. A failure says the file and the piece.
 */
interface ImportSource {
  /** Rows per batch an import writes: a row group or record batch larger than this is cut. */
  int BATCH_ROWS = 1 << 17;

  Path file();

  TableSchema schema();

  /** Rows in the file, or -1 if only reading tells. */
  long rows();

  /** Independent pieces. */
  int pieces();

  /** Reads one piece into batches of the given sink's table. */
  void read(int piece, BatchSink sink);

  /** Where a piece's rows go: batches of the table being written, appended in the order a piece reads them. */
  interface BatchSink {
    BatchBuilder newBatch(int capacity);

    /** Appends a filled batch (its row count set); the sink owns it from here on. */
    void append(BatchBuilder batch);

    /** Whether another piece failed, so this one should stop. */
    boolean cancelled();
  }
}
