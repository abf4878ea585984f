package org.spillway.storage.imports;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.file.Path;
import java.util.List;
import java.util.function.BiConsumer;
import org.apache.parquet.column.ParquetProperties.WriterVersion;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;

/**
 * Writes Parquet files for tests with the library the import reads them with (parquet-hadoop's example writer,
 * Hadoop-free through {@link ParquetCodecs} and {@link PlainParquetConfiguration}).
 */
final class ParquetTestFiles {
  private ParquetTestFiles() {}

  /**
   * How a file is written: compression, dictionary pages or plain ones, rows per row group, data pages of version 2
   * (else 1), and the dictionary page's size limit above which a chunk goes on in plain pages (0: the writer's).
   */
  record Layout(CompressionCodecName codec, boolean dictionary, int rowGroupRows, boolean pagesV2,
      int dictionaryPageBytes) {
    Layout(CompressionCodecName codec, boolean dictionary, int rowGroupRows) {
      this(codec, dictionary, rowGroupRows, false, 0);
    }
  }

  /**
   * Writes {@code rows} rows of the schema (Parquet's text form, e.g. {@code message m { required int32 a; }}),
   * {@code fill} setting the fields of each row.
   */
  static Path write(Path file, String schema, Layout layout, int rows, BiConsumer<Integer, Group> fill)
      throws IOException {
    return write(file, schema, layout, rows, fill, true);
  }

  /**
   * As {@link #write(Path, String, Layout, int, BiConsumer)}, with each page's CRC written or not: a test that
   * damages a page on purpose, to reach the decoder's own checks, writes none (else the checksum fails first).
   */
  static Path write(Path file, String schema, Layout layout, int rows, BiConsumer<Integer, Group> fill,
      boolean pageChecksums) throws IOException {
    MessageType type = MessageTypeParser.parseMessageType(schema);
    SimpleGroupFactory groups = new SimpleGroupFactory(type);
    ExampleParquetWriter.Builder builder = ExampleParquetWriter.builder()
        .withFile(new LocalOutputFile(file))
        .withType(type)
        .withCodecFactory(ParquetCodecs.INSTANCE)
        .withCompressionCodec(layout.codec())
        .withDictionaryEncoding(layout.dictionary())
        .withRowGroupRowCountLimit(layout.rowGroupRows())
        .withPageRowCountLimit(Math.max(1, layout.rowGroupRows() / 3))
        .withWriterVersion(layout.pagesV2() ? WriterVersion.PARQUET_2_0 : WriterVersion.PARQUET_1_0)
        .withPageWriteChecksumEnabled(pageChecksums);
    if (layout.dictionaryPageBytes() > 0) {
      builder.withDictionaryPageSize(layout.dictionaryPageBytes());
    }
    withPlainConfiguration(builder);
    try (ParquetWriter<Group> writer = builder.build()) {
      for (int i = 0; i < rows; i++) {
        Group group = groups.newGroup();
        fill.accept(i, group);
        writer.write(group);
      }
    }
    return file;
  }

  /**
   * {@code withConf(ParquetConfiguration)} through a method handle (reflection would load every overload): javac cannot choose between it and the overload that
   * takes Hadoop's Configuration without Hadoop's classes, which the project does not have.
   */
  private static void withPlainConfiguration(ExampleParquetWriter.Builder builder) {
    try {
      MethodHandles.publicLookup().findVirtual(ParquetWriter.Builder.class, "withConf",
          MethodType.methodType(ParquetWriter.Builder.class, ParquetConfiguration.class))
          .invoke(builder, new PlainParquetConfiguration());
    } catch (Throwable e) {
      throw new IllegalStateException(e);
    }
  }

  static List<CompressionCodecName> codecs() {
    return List.of(CompressionCodecName.UNCOMPRESSED, CompressionCodecName.SNAPPY, CompressionCodecName.GZIP,
        CompressionCodecName.ZSTD, CompressionCodecName.LZ4_RAW);
  }
}
