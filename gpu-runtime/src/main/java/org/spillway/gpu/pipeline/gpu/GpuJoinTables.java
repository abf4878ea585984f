package org.spillway.gpu.pipeline.gpu;

import static jcuda.driver.JCudaDriver.cuMemcpyDtoDAsync;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;
import static jcuda.driver.JCudaDriver.cuMemsetD32;
import static jcuda.driver.JCudaDriver.cuMemsetD8;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import jcuda.Pointer;
import org.apache.arrow.memory.util.MemoryUtil;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.CudaException;
import org.spillway.gpu.device.CudaStream;
import org.spillway.gpu.device.DeviceBuffer;
import org.spillway.gpu.device.DevicePointer;
import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;
import org.spillway.gpu.vector.IndexedColumns;

/**
 * The build sides of a GPU pipeline's hash-join probes, resident in GPU memory for one run: per probe a NOPA
 * table (Lutz et al., "Pump Up the Volume": no partitioning, the table in GPU memory, open addressing with linear
 * probing) built on the GPU from the build side's key column, and the build columns the program reads, by slot.
 * The kernels find them through one image of JoinArg and BuildColumnArg words (pipeline_program.cuh). An INNER or
 * LEFT probe needs unique build keys (a probe row becomes at most one row in the interpreter); where the build
 * finds a duplicate, {@link BuildKeysRefused} says so and the pipeline runs on the CPU, which pairs every match. A key
 * of two columns packs both into 64 bits, so their build values must fit 32 bits each (a probe value beyond them
 * matches nothing, as the probe's PACK makes it NULL).
 * With the GPU column cache, a table whose keys are all a table's column in the cache, and a build column likewise,
 * are kept in the cache too ({@link GpuColumnCache.Derived}): a query run again over the same tables builds nothing
 * ({@link #KEEP_PROPERTY} turns that off).
 * Closing frees everything, and unpins the cache's entries the tables read.
 */
final class GpuJoinTables implements AutoCloseable {
  /**
   * Thrown when an INNER or LEFT probe's build side has duplicate keys, a MARK probe's several rows of the key that
   * marks empty slots, or a two-column key a value beyond 32 bits; the message says which.
   */
  static final class BuildKeysRefused extends RuntimeException {
    BuildKeysRefused(String message) {
      super(message, null, false, false);
    }
  }

  /** System property: "false" builds every table again in each run, though the column cache holds its columns. */
  static final String KEEP_PROPERTY = "spillway.gpu.keepJoinTables";

  /** A join table made from cached key columns: the regions of the keys, and whether it keeps duplicate keys. */
  private record KeptTable(List<GpuColumnCache.Region> keys, boolean keepsDuplicates)
      implements GpuColumnCache.Derived {}

  /** A build column's 64-bit values made from cached regions. */
  private record KeptColumn(List<GpuColumnCache.Region> values) implements GpuColumnCache.Derived {}

  private static final int JOIN_WORDS = 7;
  /** Rows per block of a two-column key packed from columns that write themselves. */
  private static final int PACK_BLOCK = 4096;
  private static final int COLUMN_WORDS = 2;

  private final CudaDevice device;
  private final List<DeviceBuffer> buffers = new ArrayList<>();
  private final DeviceBuffer image;
  private final long nullableSlots;
  private final long bytes;
  private final int joins;
  /** Per probe: the device marks of a marking probe (one byte per mark and build row), its build rows and marks. */
  private final DeviceBuffer[] marks;
  private final int[] markRows;
  private final int[] markCounts;
  private final GpuKernels kernels;
  /** The column cache's view while the tables are built (null without a cache). */
  private final GpuColumnCache.Session session;
  private long uploadNanos;
  private long uploadedBytes;
  private long cachedNanos;
  private long cachedBytes;
  private long kernelNanos;
  /** Bytes of tables and columns that earlier runs left in the column cache, read as they are. */
  private long keptBytes;
  private final boolean keep = !"false".equals(System.getProperty(KEEP_PROPERTY));

  /**
   * Builds the tables of {@code program}'s probes over {@code builds} (per probe, the build side's rows; only the
   * key column and the columns of the program's slots are read). A table's column that {@code cache} (null: none)
   * holds, or can take now, is made from its copy in GPU memory instead of being uploaded.
   */
  GpuJoinTables(CudaDevice device, GpuKernels kernels, GpuProgram program, List<? extends IndexedColumns> builds,
      GpuColumnCache cache) {
    if (builds.size() != program.joinKinds.length) {
      throw new IllegalArgumentException(builds.size() + " build sides for " + program.joinKinds.length + " probes");
    }
    this.device = device;
    this.kernels = kernels;
    this.session = cache == null ? null : cache.open();
    this.joins = program.joinKinds.length;
    this.marks = new DeviceBuffer[joins];
    this.markRows = new int[joins];
    this.markCounts = new int[joins];
    long[] words = new long[JOIN_WORDS * program.joinKinds.length + COLUMN_WORDS * program.slotJoins.length];
    long nullable = 0;
    try {
      device.makeCurrent();
      for (int j = 0; j < program.joinKinds.length; j++) {
        buildTable(kernels, program, j, builds.get(j), words);
      }
      int base = JOIN_WORDS * program.joinKinds.length;
      for (int s = 0; s < program.slotJoins.length; s++) {
        int join = program.slotJoins[s];
        IndexedColumns build = builds.get(join);
        IndexedColumns.LongWriter writer = build.longWriter(program.slotColumns[s]);
        ColumnVector column = writer == null ? build.column(program.slotColumns[s]) : null;
        words[base + COLUMN_WORDS * s] = writer != null
            ? cachedOrUploaded(build, program.slotColumns[s], writer, build.rows(), "build column")
            : upload(laneBits(column), column.size, "build column");
        words[base + COLUMN_WORDS * s + 1] = column == null ? 0 : validity(column);
        boolean nulls = column != null && column.nulls != null || program.joinKinds[join] == GpuProgram.JOIN_LEFT;
        nullable |= nulls ? 1L << (GpuProgram.MAX_COLUMNS + s) : 0;
      }
      this.image = allocate(Math.max(8, words.length * 8L), "GPU join tables image");
      GpuScratch.upload(image, 0, Pointer.to(words), words.length * 8L, "GPU join tables image");
    } catch (RuntimeException e) {
      close();
      throw e;
    }
    this.nullableSlots = nullable;
    this.bytes = buffers.stream().mapToLong(DeviceBuffer::bytes).sum();
  }

  /** Builds probe {@code j}'s table and writes its JoinArg words. */
  private void buildTable(GpuKernels kernels, GpuProgram program, int j, IndexedColumns build, long[] words) {
    int kind = program.joinKinds[j];
    boolean keepsDuplicates = kind == GpuProgram.JOIN_MARK;  // a marking probe visits every row of a key
    int[] keyColumns = program.joinBuildKeys[j];
    IndexedColumns.LongWriter writer = keyColumns.length == 1 ? build.longWriter(keyColumns[0])
        : packed(build.longWriter(keyColumns[0]), build.longWriter(keyColumns[1]));
    ColumnVector keys = writer != null ? null : keyColumns.length == 1 ? build.column(keyColumns[0])
        : packed(build.column(keyColumns[0]), build.column(keyColumns[1]));
    int rows = build.rows();
    long capacity = Long.highestOneBit(Math.max(2, 2L * rows) - 1) << 1;
    long[] kept = keyColumns.length == 1 && writer != null && rows > 0
        ? keptTable(kernels, build.heldValues(keyColumns[0]), rows, capacity, keepsDuplicates) : null;
    if (kept != null) {
      finishTable(program, j, rows, kept[0], kept[1], capacity, new long[] {kept[2], kept[3]}, words);
      return;
    }
    DeviceBuffer tableKeys = allocate(capacity * 8, "GPU join table keys");
    DeviceBuffer tableRows = allocate(capacity * 4, "GPU join table rows");
    CudaException.check(cuMemsetD32(tableKeys.pointer(), -1, capacity * 2), "cuMemsetD32(join table keys)");
    long[] flags = {0, -1};
    DeviceBuffer flagBuffer = allocate(16, "GPU join build flags");
    GpuScratch.upload(flagBuffer, 0, Pointer.to(flags), 16, "GPU join build flags");
    if (rows > 0) {
      long keyAddress = writer == null ? upload(keys.longs, rows, "build keys") : keyColumns.length == 1
          ? cachedOrUploaded(build, keyColumns[0], writer, rows, "build keys")
          : packedOrUploaded(build, keyColumns, writer, rows);
      long validity = keys == null ? 0 : validity(keys);
      long kernelStart = System.nanoTime();
      CudaStream stream = GpuScratch.stream(device);
      try {
        int blocks = (int) Math.min((rows + 255L) / 256, (long) device.multiprocessors() * 8);
        kernels.joinBuild.launch(blocks, 256, stream, keyAddress, validity, (long) rows, tableKeys.pointer(),
            tableRows.pointer(), capacity - 1, flagBuffer.pointer(), keepsDuplicates ? 1 : 0);
        stream.synchronize();
      } finally {
        GpuScratch.release(device, stream);
        kernelNanos += System.nanoTime() - kernelStart;
      }
      CudaException.check(cuMemcpyDtoH(Pointer.to(flags), flagBuffer.pointer(), 16),
          "cuMemcpyDtoH(join build flags)");
    }
    finishTable(program, j, rows, tableKeys.address(), tableRows.address(), capacity, flags, words);
  }

  /**
   * Refuses a table whose build found what its probe cannot take (see {@link BuildKeysRefused}), else allocates the
   * marks of a marking probe and writes probe {@code j}'s JoinArg words.
   */
  private void finishTable(GpuProgram program, int j, int rows, long tableKeys, long tableRows, long capacity,
      long[] flags, long[] words) {
    int kind = program.joinKinds[j];
    boolean keepsDuplicates = kind == GpuProgram.JOIN_MARK;
    if (flags[0] > 0 && keepsDuplicates) {
      throw new BuildKeysRefused("the build side of mark join " + (j + 1) + " has " + (flags[0] + 1)
          + " rows whose key is the table's empty marker (the GPU table keeps one)");
    }
    if (flags[0] > 0 && (kind == GpuProgram.JOIN_INNER || kind == GpuProgram.JOIN_LEFT)) {
      throw new BuildKeysRefused("the build side of join " + (j + 1) + " has " + flags[0]
          + " duplicate keys (the GPU probe pairs each probe row with one build row)");
    }
    int markCount = program.joinMarks[j];
    if (markCount > 0) {
      long markBytes = Math.max(8, (long) markCount * rows);
      marks[j] = allocate(markBytes, "GPU join marks");
      CudaException.check(cuMemsetD8(marks[j].pointer(), (byte) 0, markBytes), "cuMemsetD8(join marks)");
      markRows[j] = rows;
      this.markCounts[j] = markCount;
      words[JOIN_WORDS * j + 5] = marks[j].address();
      words[JOIN_WORDS * j + 6] = rows;
    }
    words[JOIN_WORDS * j] = tableKeys;
    words[JOIN_WORDS * j + 1] = tableRows;
    words[JOIN_WORDS * j + 2] = capacity - 1;
    words[JOIN_WORDS * j + 3] = flags[1];
    words[JOIN_WORDS * j + 4] = kind;
  }

  /**
   * The table over keys the column cache holds, kept in the cache: {table keys, table rows, the build's two flags}
   * addresses and values, built into a new entry in the first run (the cache's entries of the key column widened
   * into a scratch copy, the table built from it) and read as it is in later ones. Null where the keys are not all
   * cached, the cache has no room, or another run is building the same table: the caller builds its own.
   */
  private long[] keptTable(GpuKernels kernels, List<IndexedColumns.HeldValues> held, int rows, long capacity,
      boolean keepsDuplicates) {
    if (!keep || session == null || !covers(held, rows)) {
      return null;
    }
    long tableBytes = capacity * 12;
    GpuColumnCache.Entry entry = session.acquire(new KeptTable(regions(held), keepsDuplicates), 0, tableBytes + 16);
    if (entry == null) {
      return null;
    }
    long keysAt = entry.address();
    long rowsAt = keysAt + capacity * 8;
    long flagsAt = keysAt + tableBytes;
    if (session.mustFill(entry)) {
      long keyAddress = fromCache(held, rows, "build keys");
      if (keyAddress == 0) {
        return null;  // the unfilled entry goes when the session closes
      }
      CudaException.check(cuMemsetD32(new DevicePointer(keysAt), -1, capacity * 2), "cuMemsetD32(join table keys)");
      CudaException.check(cuMemcpyHtoD(new DevicePointer(flagsAt), Pointer.to(new long[] {0, -1}), 16),
          "cuMemcpyHtoD(join build flags)");
      long kernelStart = System.nanoTime();
      CudaStream stream = GpuScratch.stream(device);
      try {
        int blocks = (int) Math.min((rows + 255L) / 256, (long) device.multiprocessors() * 8);
        kernels.joinBuild.launch(blocks, 256, stream, keyAddress, 0L, (long) rows, new DevicePointer(keysAt),
            new DevicePointer(rowsAt), capacity - 1, new DevicePointer(flagsAt), keepsDuplicates ? 1 : 0);
        session.filledOnDevice(entry, stream);
        stream.synchronize();
      } finally {
        GpuScratch.release(device, stream);
        kernelNanos += System.nanoTime() - kernelStart;
      }
    } else {
      awaitKept(entry, tableBytes + 16);
    }
    long[] flags = new long[2];
    CudaException.check(cuMemcpyDtoH(Pointer.to(flags), new DevicePointer(flagsAt), 16),
        "cuMemcpyDtoH(join build flags)");
    return new long[] {keysAt, rowsAt, flags[0], flags[1]};
  }

  /** Waits for a kept entry another run filled, and counts it read as it is. */
  private void awaitKept(GpuColumnCache.Entry entry, long bytes) {
    CudaStream stream = GpuScratch.stream(device);
    try {
      session.await(entry, stream);
      stream.synchronize();
    } finally {
      GpuScratch.release(device, stream);
    }
    keptBytes += bytes;
  }

  /** Whether the cache's regions hold all {@code rows} values of a column. */
  private static boolean covers(List<IndexedColumns.HeldValues> held, int rows) {
    return held != null && held.stream().mapToLong(IndexedColumns.HeldValues::rows).sum() == rows;
  }

  private static List<GpuColumnCache.Region> regions(List<IndexedColumns.HeldValues> held) {
    return held.stream().map(h -> new GpuColumnCache.Region(h.owner(), h.address(), h.width() * h.rows())).toList();
  }

  /**
   * The marks probe {@code j} (a JOIN_MARK) set: per mark, one byte per build row, 1 where a probe row
   * marked it.
   */
  byte[] marks(int j) {
    byte[] out = new byte[markCounts[j] * markRows[j]];
    if (out.length > 0) {
      CudaException.check(cuMemcpyDtoH(Pointer.to(out), marks[j].pointer(), out.length), "cuMemcpyDtoH(join marks)");
    }
    return out;
  }

  /**
   * Two key columns of 32-bit values as one 64-bit key, high then low (the probe side's PACK); NULL where either is.
   * Throws {@link BuildKeysRefused} where a value does not fit 32 bits (a column of a 64-bit type).
   */
  static ColumnVector packed(ColumnVector high, ColumnVector low) {
    int rows = high.size;
    long[] values = new long[rows];
    boolean[] nulls = high.nulls == null && low.nulls == null ? null : new boolean[rows];
    for (int r = 0; r < rows; r++) {
      boolean isNull = high.isNull(r) || low.isNull(r);
      if (nulls != null) {
        nulls[r] = isNull;
      }
      if (!isNull) {
        values[r] = pack(high.longs[r], low.longs[r]);
      }
    }
    return ColumnVector.ofLongs(ExprType.INT64, values, nulls, rows);
  }

  private static long pack(long high, long low) {
    if (high != (int) high || low != (int) low) {
      throw new BuildKeysRefused("a two-column join key has the build value " + (high != (int) high ? high : low)
          + ", beyond 32 bits (the GPU probe packs two 32-bit keys into one)");
    }
    return high << 32 | low & 0xffffffffL;
  }

  /**
   * The same packing of two key columns that write themselves (null unless both do): each block of rows written as the
   * high column, then or-ed with the low column's block from scratch memory.
   */
  static IndexedColumns.LongWriter packed(IndexedColumns.LongWriter high, IndexedColumns.LongWriter low) {
    if (high == null || low == null) {
      return null;
    }
    return (from, n, address) -> {
      long scratch = MemoryUtil.allocateMemory(PACK_BLOCK * 8L);
      try {
        for (int done = 0; done < n; done += PACK_BLOCK) {
          int m = Math.min(PACK_BLOCK, n - done);
          high.write(from + done, m, address + done * 8L);
          low.write(from + done, m, scratch);
          for (int i = 0; i < m; i++) {
            long at = address + (done + (long) i) * 8L;
            MemoryUtil.putLong(at, pack(MemoryUtil.getLong(at), MemoryUtil.getLong(scratch + i * 8L)));
          }
        }
      } finally {
        MemoryUtil.freeMemory(scratch);
      }
    };
  }

  /** A column's 64-bit values: its longs, or its doubles' IEEE-754 bits (the registers of FLOAT64 values). */
  static long[] laneBits(ColumnVector column) {
    if (column.longs != null) {
      return column.longs;
    }
    long[] bits = new long[column.size];
    for (int r = 0; r < column.size; r++) {
      bits[r] = Double.doubleToRawLongBits(column.doubles[r]);
    }
    return bits;
  }

  /** Device address of a copy of the first {@code rows} values. */
  private long upload(long[] values, int rows, String what) {
    DeviceBuffer buffer = allocate(Math.max(8, rows * 8L), "GPU " + what);
    long start = System.nanoTime();
    StagedUpload.longs(device, buffer, 0, values, rows, what);
    counted(start, rows);
    return buffer.address();
  }

  private void counted(long start, int rows) {
    uploadNanos += System.nanoTime() - start;
    uploadedBytes += rows * 8L;
  }

  /**
   * Bytes of build keys and columns uploaded from host memory: 64-bit values written on the host, or a table's values
   * read from its pinned batches at their own width.
   */
  long uploadedBytes() {
    return uploadedBytes;
  }

  /** Bytes of 64-bit build keys and columns made from the column cache's copies. */
  long cachedBytes() {
    return cachedBytes;
  }

  /**
   * Where the tables' time went, for traces: the uploads of keys and columns (with reading them), the columns made
   * from the column cache's copies, and the builds.
   */
  String timing() {
    return String.format(Locale.ROOT, "%.1f MB uploaded in %.1f ms, %.1f MB from the column cache in %.1f ms, tables "
        + "built in %.1f ms, %.1f MB of tables and columns kept from earlier runs", uploadedBytes / 1e6,
        uploadNanos / 1e6, cachedBytes / 1e6, cachedNanos / 1e6, kernelNanos / 1e6, keptBytes / 1e6);
  }

  /** Bytes of tables and columns read as earlier runs left them in the column cache. */
  long keptBytes() {
    return keptBytes;
  }

  /**
   * Device address of column {@code c}'s 64-bit values: made on the GPU from the column cache's copies of the table's
   * batches where the cache holds them all or takes them now (filled from host memory, narrow values as they lie),
   * else from the batches themselves where they lie in pinned host memory, else written by {@code writer} and
   * uploaded.
   */
  private long cachedOrUploaded(IndexedColumns build, int c, IndexedColumns.LongWriter writer, int rows, String what) {
    List<IndexedColumns.HeldValues> held = build.heldValues(c);
    long address = keptColumn(held, rows, what);
    address = address != 0 ? address : session == null ? 0 : fromCache(held, rows, what);
    address = address != 0 ? address : fromPinned(held, rows, what);
    return address != 0 ? address : upload(writer, rows, what);
  }

  /**
   * Device address of column values made from a table's batches in pinned host memory ({@link PinnedRegions}), or 0
   * where they lie elsewhere (or {@link PinnedRegions#PROPERTY} is false).
   */
  private long fromPinned(List<IndexedColumns.HeldValues> held, int rows, String what) {
    long[] mapped = PinnedRegions.ENABLED && rows > 0 && covers(held, rows) ? PinnedRegions.mapped(device, held) : null;
    if (mapped == null) {
      return 0;
    }
    return madeOnDevice(rows, what, PinnedRegions.bytes(held),
        (target, stream) -> PinnedRegions.widen(device, kernels, held, mapped, target, stream));
  }

  /**
   * Device address of a two-column key: packed on the GPU from a table's 4-byte columns in pinned host memory, else
   * packed on the host by {@code writer} and uploaded.
   */
  private long packedOrUploaded(IndexedColumns build, int[] keyColumns, IndexedColumns.LongWriter writer, int rows) {
    List<IndexedColumns.HeldValues> high = build.heldValues(keyColumns[0]);
    List<IndexedColumns.HeldValues> low = build.heldValues(keyColumns[1]);
    boolean onGpu = PinnedRegions.ENABLED && PinnedRegions.packable(high, low) && covers(high, rows);
    long[] mappedHigh = onGpu ? PinnedRegions.mapped(device, high) : null;
    long[] mappedLow = mappedHigh != null ? PinnedRegions.mapped(device, low) : null;
    if (mappedLow == null) {
      return upload(writer, rows, "build keys");
    }
    return madeOnDevice(rows, "build keys", PinnedRegions.bytes(high) + PinnedRegions.bytes(low),
        (target, stream) -> PinnedRegions.pack(device, kernels, high, mappedHigh, mappedLow, target, stream));
  }

  /** Writes {@code rows} 64-bit values at a device address on a stream. */
  private interface DeviceWrite {
    void write(long target, CudaStream stream);
  }

  /**
   * Device address of {@code rows} 64-bit values that {@code write} makes on a stream, counted as an upload of
   * {@code hostBytes} (what it read from host memory).
   */
  private long madeOnDevice(int rows, String what, long hostBytes, DeviceWrite write) {
    DeviceBuffer out = allocate(rows * 8L, "GPU " + what);
    long start = System.nanoTime();
    CudaStream stream = GpuScratch.stream(device);
    try {
      write.write(out.address(), stream);
    } finally {
      stream.synchronize();
      GpuScratch.release(device, stream);
    }
    uploadNanos += System.nanoTime() - start;
    uploadedBytes += hostBytes;
    return out.address();
  }

  /**
   * Device address of a build column's 64-bit values kept in the column cache: made there from the cache's regions in
   * the first run, read as they are in later ones; 0 where the cache does not hold them all or has no room now.
   */
  private long keptColumn(List<IndexedColumns.HeldValues> held, int rows, String what) {
    if (!keep || session == null || rows == 0 || !covers(held, rows)) {
      return 0;
    }
    GpuColumnCache.Entry entry = session.acquire(new KeptColumn(regions(held)), 0, rows * 8L);
    if (entry == null) {
      return 0;
    }
    if (!session.mustFill(entry)) {
      awaitKept(entry, rows * 8L);
      return entry.address();
    }
    CudaStream stream = GpuScratch.stream(device);
    try {
      if (!copyFromCache(held, entry.address(), what, stream)) {
        return 0;  // the unfilled entry goes when the session closes
      }
      session.filledOnDevice(entry, stream);
    } finally {
      stream.synchronize();
      GpuScratch.release(device, stream);
    }
    return entry.address();
  }

  /**
   * See above: the address, or 0 where the cache does not hold every batch's values. Each entry this run creates is
   * filled at once, so that another run building from the same table meanwhile finds it ready rather than being filled.
   */
  private long fromCache(List<IndexedColumns.HeldValues> held, int rows, String what) {
    if (!covers(held, rows)) {
      return 0;
    }
    DeviceBuffer out = allocate(Math.max(8, rows * 8L), "GPU " + what);
    CudaStream stream = GpuScratch.stream(device);
    try {
      return copyFromCache(held, out.address(), what, stream) ? out.address() : 0;
    } finally {
      stream.synchronize();
      GpuScratch.release(device, stream);
    }
  }

  /**
   * Copies (widens) the column cache's copies of the regions into {@code target} on {@code stream}, filling the
   * entries that this run creates; false where the cache cannot hold one now (no room, or another run fills it).
   */
  private boolean copyFromCache(List<IndexedColumns.HeldValues> held, long target, String what, CudaStream stream) {
    long start = System.nanoTime();
    long row = 0;
    for (IndexedColumns.HeldValues h : held) {
      if (h.rows() == 0) {
        continue;
      }
      GpuColumnCache.Entry entry = session.acquire(h.owner(), h.address(), h.width() * h.rows());
      if (entry == null) {
        return false;  // no room, or another run fills it now: the column is uploaded (the entries filled stay)
      }
      if (session.mustFill(entry)) {
        session.fill(entry, stream);
      } else {
        session.await(entry, stream);
      }
      long at = target + row * 8;
      if (h.width() == 8) {
        CudaException.check(cuMemcpyDtoDAsync(new DevicePointer(at), new DevicePointer(entry.address()),
            h.rows() * 8, stream.handle()), "cuMemcpyDtoDAsync(" + what + " from the column cache)");
      } else {
        int blocks = (int) Math.min((h.rows() + 255) / 256, (long) device.multiprocessors() * 8);
        kernels.widen.launch(blocks, 256, stream, entry.address(), at, h.rows());
      }
      row += h.rows();
    }
    cachedNanos += System.nanoTime() - start;
    cachedBytes += row * 8L;
    return true;
  }

  /** Device address of a copy of {@code rows} values that {@code writer} writes where they are. */
  private long upload(IndexedColumns.LongWriter writer, int rows, String what) {
    DeviceBuffer buffer = allocate(Math.max(8, rows * 8L), "GPU " + what);
    long start = System.nanoTime();
    StagedUpload.longs(device, buffer, 0, writer, rows, what);
    counted(start, rows);
    return buffer.address();
  }

  /** Device address of the column's validity bitmap (Arrow layout), or 0 where no row is NULL. */
  private long validity(ColumnVector column) {
    if (column.nulls == null) {
      return 0;
    }
    byte[] bits = new byte[(column.size + 7) / 8];
    for (int r = 0; r < column.size; r++) {
      if (!column.nulls[r]) {
        bits[r >>> 3] |= (byte) (1 << (r & 7));
      }
    }
    DeviceBuffer buffer = allocate(Math.max(8, bits.length), "GPU build validity");
    GpuScratch.upload(buffer, 0, Pointer.to(bits), bits.length, "build validity");
    return buffer.address();
  }

  private DeviceBuffer allocate(long bytes, String purpose) {
    DeviceBuffer buffer = device.allocator().allocate(bytes, purpose);
    buffers.add(buffer);
    return buffer;
  }

  /** Address of the JoinArg array. */
  long joinsAddress() {
    return image.address();
  }

  /** Address of the BuildColumnArg array (after the joins). */
  long columnsAddress() {
    return image.address() + JOIN_WORDS * 8L * joins;
  }

  /** NULL bits (MAX_COLUMNS + slot) of the build column slots that may read NULL: data NULLs or a LEFT miss. */
  long nullableSlots() {
    return nullableSlots;
  }

  /** GPU memory the tables and columns take. */
  long bytes() {
    return bytes;
  }

  @Override public void close() {
    buffers.forEach(DeviceBuffer::close);
    buffers.clear();
    if (session != null) {
      session.close();  // kept tables and columns were read in place: their entries stayed pinned until now
    }
  }
}
