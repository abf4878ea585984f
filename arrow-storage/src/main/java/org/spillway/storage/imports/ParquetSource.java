package org.spillway.storage.imports;

import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Constructor;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.VersionParser;
import org.apache.parquet.VersionParser.ParsedVersion;
import org.apache.parquet.bytes.ByteBufferAllocator;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.crypto.FileDecryptionProperties;
import org.apache.parquet.filter2.compat.FilterCompat;
import org.apache.parquet.format.converter.ParquetMetadataConverter;
import org.apache.parquet.hadoop.ParquetMetricsCallback;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;
import org.apache.parquet.schema.MessageType;
import org.spillway.storage.BatchBuilder;
import org.spillway.storage.ColumnDef;
import org.spillway.storage.StorageException;
import org.spillway.storage.TableSchema;

/**
 * A Parquet file read through parquet-hadoop's {@link ParquetFileReader} on a {@link ChannelInputFile}, with
 * {@link PlainParquetConfiguration} and {@link ParquetCodecs}, so that no Hadoop class is needed. Each row group is
 * a piece: its column chunks are decoded column by column into batches.
 */
final class ParquetSource extends FileSource {
  /**
   * {@code ParquetFileReader(InputFile, ParquetMetadata, ParquetReadOptions, SeekableInputStream)}: a reader of a row
   * group that takes the footer already read, so that it is not read and parsed again for every row group (a file
   * of many row groups has a footer that grows with them). Called through a method handle because javac cannot
   * choose between it and the overload of four arguments that names Hadoop's classes without them.
   */
  private static final MethodHandle READER_WITH_FOOTER = readerWithFooter();

  /** parquet-hadoop's default largest single read. */
  private static final int MAX_ALLOCATION_BYTES = 8 << 20;

  private final ParquetMetadata footer;
  private final List<ParquetColumn> columns;
  private final ParquetReadOptions options = readOptions();
  /** The writer's version, for parquet-column's workaround of old writers' delta pages; null if unknown. */
  private final ParsedVersion writerVersion;

  private ParquetSource(Path file, ParquetMetadata footer, List<ParquetColumn> columns) {
    super(file, new TableSchema(columns.stream().map(ParquetColumn::column).toList()));
    this.footer = footer;
    this.columns = columns;
    this.writerVersion = writerVersion(footer.getFileMetaData().getCreatedBy());
  }

  private static ParsedVersion writerVersion(String createdBy) {
    try {
      return createdBy == null ? null : VersionParser.parse(createdBy);
    } catch (VersionParser.VersionParseException | RuntimeException e) {
      return null;  // as parquet-column's own reader: an unknown writer
    }
  }

  /** Reads the footer and maps the schema; fails with the file and why if either is not importable. */
  static ParquetSource open(Path file, TimestampMode timestamps) {
    ParquetMetadata footer;
    try (ParquetFileReader reader = openReader(file, readOptions())) {
      footer = reader.getFooter();
    } catch (IOException | RuntimeException e) {
      throw new StorageException(file + ": not a readable Parquet file: " + reason(e), e);
    }
    MessageType parquetSchema = footer.getFileMetaData().getSchema();
    List<ParquetColumn> columns = new ArrayList<>();
    try {
      for (int i = 0; i < parquetSchema.getFieldCount(); i++) {
        ColumnDescriptor descriptor = parquetSchema.getType(i).isPrimitive()
            ? parquetSchema.getColumnDescription(new String[] {parquetSchema.getType(i).getName()}) : null;
        columns.add(ParquetColumn.of(parquetSchema.getType(i), descriptor, timestamps));
      }
      for (BlockMetaData rowGroup : footer.getBlocks()) {
        for (ColumnChunkMetaData chunk : rowGroup.getColumns()) {
          if (!ParquetCodecs.supports(chunk.getCodec())) {
            throw new StorageException("column " + chunk.getPath().toDotString() + " is compressed with "
                + chunk.getCodec() + "; supported: UNCOMPRESSED, SNAPPY, GZIP, ZSTD, LZ4_RAW");
          }
        }
      }
      return new ParquetSource(file, footer, columns);
    } catch (StorageException e) {
      throw new StorageException(file + ": " + e.getMessage(), e);
    }
  }

  /**
   * A reader of the file. The constructor that takes an {@code InputFile} and options is the one call javac can
   * resolve without Hadoop's classes (the other overloads name them); it reads the footer again, which is small.
   */
  private static ParquetFileReader openReader(Path file, ParquetReadOptions options) throws IOException {
    return new ParquetFileReader(new ChannelInputFile(file), options);
  }

  private static MethodHandle readerWithFooter() {
    try {
      return MethodHandles.publicLookup().findConstructor(ParquetFileReader.class, MethodType.methodType(void.class,
          InputFile.class, ParquetMetadata.class, ParquetReadOptions.class, SeekableInputStream.class));
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("this parquet-hadoop version's ParquetFileReader has no constructor that"
          + " takes a footer: " + e, e);
    }
  }

  /** A reader of this file that uses the footer read by {@link #open}. */
  private ParquetFileReader openReader() throws IOException {
    InputFile input = new ChannelInputFile(file());
    SeekableInputStream stream = input.newStream();
    try {
      return (ParquetFileReader) READER_WITH_FOOTER.invoke(input, footer, options, stream);
    } catch (IOException | RuntimeException | Error e) {
      stream.close();
      throw e;
    } catch (Throwable e) {
      stream.close();
      throw new IllegalStateException(e);
    }
  }

  /**
   * Read options with {@link ParquetCodecs}. Both constructors of {@code ParquetReadOptions.Builder} first build
   * parquet-hadoop's codec factory, which needs Hadoop's classes, so the options are made with the constructor that
   * the builder itself calls (package-private, hence reflection), with the builder's defaults and page checksums
   * verified. A parquet-hadoop upgrade that changes it fails every Parquet import test.
   */
  private static ParquetReadOptions readOptions() {
    try {
      Constructor<ParquetReadOptions> constructor = ParquetReadOptions.class.getDeclaredConstructor(
          boolean.class, boolean.class, boolean.class, boolean.class, boolean.class, boolean.class, boolean.class,
          boolean.class, boolean.class, FilterCompat.Filter.class, ParquetMetadataConverter.MetadataFilter.class,
          CompressionCodecFactory.class, ByteBufferAllocator.class, int.class, Map.class,
          FileDecryptionProperties.class, ParquetMetricsCallback.class, ParquetConfiguration.class);
      constructor.setAccessible(true);
      return constructor.newInstance(
          false /* useSignedStringMinMax */, true /* useStatsFilter */, true /* useDictionaryFilter */,
          true /* useRecordFilter */, true /* useColumnIndexFilter */, true /* usePageChecksumVerification */,
          true /* useBloomFilter */, false /* useOffHeapDecryptBuffer */, false /* useHadoopVectoredIo */,
          FilterCompat.NOOP, ParquetMetadataConverter.NO_FILTER, ParquetCodecs.INSTANCE,
          RowGroupBuffers.ALLOCATOR, MAX_ALLOCATION_BYTES, new HashMap<String, String>(), null, null,
          new PlainParquetConfiguration());
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("this parquet-hadoop version's ParquetReadOptions has no constructor that"
          + " Spillway knows: " + e, e);
    }
  }

  /** The file's footer, as read by {@link #open}. */
  ParquetMetadata footer() {
    return footer;
  }

  @Override
  public long rows() {
    return footer.getBlocks().stream().mapToLong(BlockMetaData::getRowCount).sum();
  }

  @Override
  public int pieces() {
    return footer.getBlocks().size();
  }

  @Override
  public void read(int rowGroup, BatchSink sink) {
    String where = file() + ": row group " + rowGroup;
    // the row group's bytes and pages are read into the thread's arrays, free again once it is decoded
    try (RowGroupBuffers.Scope buffers = RowGroupBuffers.scope(); ParquetFileReader reader = openReader()) {
      PageReadStore pages = reader.readRowGroup(rowGroup);
      if (pages == null) {
        throw new StorageException(where + ": missing from the file");
      }
      List<ParquetChunkDecoder> decoders = new ArrayList<>(columns.size());
      for (ParquetColumn column : columns) {
        decoders.add(new ParquetChunkDecoder(column, pages.getPageReader(column.descriptor()), writerVersion));
      }
      long remaining = pages.getRowCount();
      while (remaining > 0 && !sink.cancelled()) {
        int rows = (int) Math.min(remaining, BATCH_ROWS);
        BatchBuilder batch = sink.newBatch(rows);
        try {
          for (int col = 0; col < columns.size(); col++) {
            copyColumn(col, decoders.get(col), batch, rows, where);
          }
          batch.setRowCount(rows);
        } catch (RuntimeException e) {
          batch.close();
          throw e;
        }
        sink.append(batch);
        remaining -= rows;
      }
    } catch (IOException e) {
      throw new StorageException(where + ": " + reason(e), e);
    } catch (StorageException e) {
      throw e;
    } catch (RuntimeException e) {
      // parquet-hadoop reports damaged pages (a failed checksum, say) as ParquetDecodingException
      throw new StorageException(where + ": cannot read: " + reason(e), e);
    }
  }

  private void copyColumn(int col, ParquetChunkDecoder decoder, BatchBuilder batch, int rows, String where) {
    ColumnDef column = columns.get(col).column();
    try {
      decoder.copy(batch, col, rows);
    } catch (StorageException e) {
      throw new StorageException(where + ": column " + column.name() + ": " + e.getMessage(), e);
    } catch (IOException | RuntimeException e) {
      // parquet-column reports damaged pages as ParquetDecodingException and friends
      throw new StorageException(where + ": column " + column.name() + ": cannot decode: " + reason(e), e);
    }
  }

  private static String reason(Throwable e) {
    StringBuilder reason = new StringBuilder(String.valueOf(e.getMessage()));
    for (Throwable cause = e.getCause(); cause != null && cause != e; cause = cause.getCause()) {
      if (cause.getMessage() != null && !reason.toString().contains(cause.getMessage())) {
        reason.append(": ").append(cause.getMessage());
      }
      e = cause;
    }
    return reason.toString();
  }
}
