package org.spillway.storage.imports;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.api.Binary;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.spillway.storage.Catalog;
import org.spillway.storage.ColumnStatistics;
import org.spillway.storage.StorageException;
import org.spillway.storage.StoredTable;
import org.spillway.storage.TableSchema;
import org.spillway.storage.TestTables;

/** Parquet files written by parquet-hadoop, with every layout and type the import takes, read back exactly. */
class ParquetImportTest {
  private static final int ROWS = 2_000;
  private static final String ALL_TYPES = """
      message all_types {
        required int32 id;
        optional int64 big;
        optional int32 tiny (INTEGER(8,true));
        optional int32 unsigned (INTEGER(32,false));
        optional float f;
        optional double d;
        optional int32 price9 (DECIMAL(9,2));
        optional int64 price15 (DECIMAL(15,2));
        optional fixed_len_byte_array(8) price18 (DECIMAL(18,4));
        optional int32 day (DATE);
        optional binary flag (STRING);
        optional binary comment (STRING);
      }""";
  private static final int DAY0 = (int) LocalDate.of(1992, 1, 1).toEpochDay();

  @TempDir Path dir;

  static Stream<Arguments> layouts() {
    List<Arguments> layouts = new ArrayList<>();
    for (CompressionCodecName codec : ParquetTestFiles.codecs()) {
      layouts.add(Arguments.of(codec, true));
    }
    layouts.add(Arguments.of(CompressionCodecName.SNAPPY, false));
    return layouts.stream();
  }

  /** Every type, NULLs in every NULL-able column, several row groups, each codec, dictionary and plain pages. */
  @ParameterizedTest(name = "{0}, dictionary {1}")
  @MethodSource("layouts")
  void everyTypeReadsBackExactly(CompressionCodecName codec, boolean dictionary) throws IOException {
    Path file = ParquetTestFiles.write(dir.resolve("all.parquet"), ALL_TYPES,
        new ParquetTestFiles.Layout(codec, dictionary, 700), ROWS, ParquetImportTest::fill);
    try (Catalog catalog = Catalog.create(dir.resolve("data"))) {
      ImportResult result = TableImport.run(catalog, "all_types", List.of(file), ImportOptions.defaults());
      StoredTable table = result.table();
      assertEquals(TableSchema.of(
          org.spillway.storage.ColumnDef.of("id", "INTEGER NOT NULL"), org.spillway.storage.ColumnDef.of("big", "BIGINT"),
          org.spillway.storage.ColumnDef.of("tiny", "INTEGER"), org.spillway.storage.ColumnDef.of("unsigned", "BIGINT"),
          org.spillway.storage.ColumnDef.of("f", "DOUBLE"), org.spillway.storage.ColumnDef.of("d", "DOUBLE"),
          org.spillway.storage.ColumnDef.of("price9", "DECIMAL(9,2)"),
          org.spillway.storage.ColumnDef.of("price15", "DECIMAL(15,2)"),
          org.spillway.storage.ColumnDef.of("price18", "DECIMAL(18,4)"), org.spillway.storage.ColumnDef.of("day", "DATE"),
          org.spillway.storage.ColumnDef.of("flag", "VARCHAR"), org.spillway.storage.ColumnDef.of("comment", "VARCHAR")),
          table.schema());
      List<List<Object>> rows = TestTables.rows(table);
      assertEquals(ROWS, rows.size());
      for (int i = 0; i < ROWS; i++) {
        assertEquals(expected(i), rows.get(i), "row " + i);
      }
      assertEquals(Files.size(file), result.inputBytes());
      // statistics as the generator collects them, and its dictionary decision: few flags, unique comments
      ColumnStatistics big = table.statistics().columns().get(1);
      assertEquals(rows.stream().filter(r -> r.get(1) == null).count(), big.nullCount());
      assertTrue(table.isDictionaryEncoded(10), "a column of 3 distinct values is dictionary-encoded");
      assertFalse(table.isDictionaryEncoded(11), "a column of unique values is not");
    }
  }

  /**
   * The page decoder reads every kind of page alike: plain and dictionary-encoded values, data pages of version 1
   * and 2. The rows are the values written, and the statistics and dictionary decisions do not depend on the pages (on
   * dictionary pages the text statistics take each entry once, on plain ones every row).
   */
  @Test
  void everyPageKindGivesTheSameTable() throws IOException {
    List<ParquetTestFiles.Layout> layouts = List.of(
        new ParquetTestFiles.Layout(CompressionCodecName.SNAPPY, false, 700),
        new ParquetTestFiles.Layout(CompressionCodecName.SNAPPY, true, 700),
        new ParquetTestFiles.Layout(CompressionCodecName.SNAPPY, true, 700, true, 0),
        new ParquetTestFiles.Layout(CompressionCodecName.SNAPPY, false, 700, true, 0));
    org.spillway.storage.TableStatistics firstStatistics = null;
    List<Boolean> firstEncoded = null;
    for (int i = 0; i < layouts.size(); i++) {
      ParquetTestFiles.Layout layout = layouts.get(i);
      Path file = ParquetTestFiles.write(dir.resolve("pages" + i + ".parquet"), ALL_TYPES, layout, ROWS,
          ParquetImportTest::fill);
      try (Catalog catalog = Catalog.create(dir.resolve("data" + i))) {
        StoredTable table = TableImport.run(catalog, "t", List.of(file), ImportOptions.defaults()).table();
        List<List<Object>> rows = TestTables.rows(table);
        for (int row = 0; row < ROWS; row++) {
          assertEquals(expected(row), rows.get(row), layout + ", row " + row);
        }
        List<Boolean> encoded = new ArrayList<>();
        for (int col = 0; col < table.schema().size(); col++) {
          encoded.add(table.isDictionaryEncoded(col));
        }
        if (firstStatistics == null) {
          firstStatistics = table.statistics();
          firstEncoded = encoded;
        }
        assertEquals(firstStatistics, table.statistics(), layout.toString());
        assertEquals(firstEncoded, encoded, layout.toString());
      }
    }
  }

  /**
   * Text whose pages mix ASCII, other UTF-8 and malformed bytes (read as decoding replaces them) reads back as
   * stored, whatever the pages: plain pages are copied and checked for ASCII a page run at a time, and a run that
   * is not all ASCII goes value by value.
   */
  @Test
  void textOfMixedScriptsReadsBackFromEveryPageKind() throws IOException {
    String schema = "message m { required int32 id; optional binary s (STRING); }";
    int rows = 3_000;
    java.util.function.IntFunction<byte[]> value = i -> i % 7 == 0 ? null
        : i % 11 == 0 ? ("é " + i).getBytes(java.nio.charset.StandardCharsets.UTF_8)
        : i % 13 == 0 ? new byte[] {'a', (byte) 0xff, 'b'}
        : ("ascii " + i % 50).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    java.util.function.BiConsumer<Integer, Group> fill = (i, row) -> {
      row.add("id", i);
      if (value.apply(i) != null) {
        row.add("s", Binary.fromConstantByteArray(value.apply(i)));
      }
    };
    for (boolean v2 : new boolean[] {false, true}) {
      for (boolean dictionary : new boolean[] {false, true}) {
        ParquetTestFiles.Layout layout = new ParquetTestFiles.Layout(CompressionCodecName.SNAPPY, dictionary, 1_000,
            v2, 0);
        Path file = ParquetTestFiles.write(dir.resolve("text" + v2 + dictionary + ".parquet"), schema, layout, rows,
            fill);
        try (Catalog catalog = Catalog.create(dir.resolve("text" + v2 + dictionary))) {
          List<List<Object>> values = TestTables.rows(TableImport.run(catalog, "t", List.of(file),
              ImportOptions.defaults()).table());
          for (int i = 0; i < rows; i++) {
            byte[] bytes = value.apply(i);
            String stored = bytes == null ? null : new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
            assertEquals(Arrays.asList(i, stored), values.get(i), layout + ", row " + i);
          }
        }
      }
    }
  }

  /**
   * Dictionary entries too long to copy in whole words read back: those of 40 bytes, with room for the longest in
   * every row made at once, and those so long that this room would be too much (over 64 MiB for the batch), with room
   * made row by row.
   */
  @ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(ints = {40, 300_000})
  void longDictionaryEntriesReadBack(int longLength) throws IOException {
    String schema = "message m { required int32 id; optional binary s (STRING); }";
    int rows = 300;
    String longValue = "x".repeat(longLength);
    java.util.function.IntFunction<String> value = i -> i % 5 == 0 ? null : i % 2 == 0 ? longValue : "short";
    java.util.function.BiConsumer<Integer, Group> fill = (i, row) -> {
      row.add("id", i);
      if (value.apply(i) != null) {
        row.add("s", value.apply(i));
      }
    };
    Path file = ParquetTestFiles.write(dir.resolve("long.parquet"), schema,
        new ParquetTestFiles.Layout(CompressionCodecName.SNAPPY, true, rows, false, 1 << 20), rows, fill);
    assertTrue(onlyDictionaryPages(file, "s"), "the long value is a dictionary entry");
    try (Catalog catalog = Catalog.create(dir.resolve("data"))) {
      List<List<Object>> values = TestTables.rows(TableImport.run(catalog, "t", List.of(file),
          ImportOptions.defaults()).table());
      for (int i = 0; i < rows; i++) {
        assertEquals(Arrays.asList(i, value.apply(i)), values.get(i), "row " + i);
      }
    }
  }

  /**
   * A chunk that starts in dictionary pages and goes on in plain ones once its dictionary is full (as writers do for
   * a column whose values stop repeating) reads back exactly, with the statistics of the same rows in plain pages:
   * a batch that mixes both kinds takes its text statistics from every row.
   */
  @Test
  void chunkThatOutgrowsItsDictionaryReadsBack() throws IOException {
    String schema = "message m { required int32 id; optional binary s (STRING); }";
    int rows = 2_000;
    java.util.function.IntFunction<String> value = i -> i % 13 == 0 ? null : i < 700 ? "few " + i % 5 : "many é" + i;
    java.util.function.BiConsumer<Integer, Group> fill = (i, row) -> {
      row.add("id", i);
      if (value.apply(i) != null) {
        row.add("s", value.apply(i));
      }
    };
    Path mixed = ParquetTestFiles.write(dir.resolve("mixed.parquet"), schema,
        new ParquetTestFiles.Layout(CompressionCodecName.SNAPPY, true, rows, false, 1_000), rows, fill);
    Path plain = ParquetTestFiles.write(dir.resolve("plain.parquet"), schema,
        new ParquetTestFiles.Layout(CompressionCodecName.SNAPPY, false, rows), rows, fill);
    assertTrue(mixesDictionaryAndPlainPages(mixed, "s"), "the dictionary overflows within the chunk");
    try (Catalog a = Catalog.create(dir.resolve("a")); Catalog b = Catalog.create(dir.resolve("b"))) {
      StoredTable fromMixed = TableImport.run(a, "t", List.of(mixed), ImportOptions.defaults()).table();
      StoredTable fromPlain = TableImport.run(b, "t", List.of(plain), ImportOptions.defaults()).table();
      List<List<Object>> values = TestTables.rows(fromMixed);
      for (int i = 0; i < rows; i++) {
        assertEquals(Arrays.asList(i, value.apply(i)), values.get(i), "row " + i);
      }
      assertEquals(fromPlain.statistics(), fromMixed.statistics());
      assertEquals(fromPlain.isDictionaryEncoded(1), fromMixed.isDictionaryEncoded(1));
    }
  }

  /**
   * Plain text of every length from 0 to 150 bytes, NULLs between, reads back exactly: values of up to 64 bytes are
   * copied as 64 bytes, past their end (overwritten by the next), longer ones and those at a page's end as they are;
   * v1 and v2 pages, batches that end inside a page (row groups of more rows than a batch).
   */
  @Test
  void plainTextOfEveryLengthReadsBack() throws IOException {
    String schema = "message m { required int32 id; optional binary s (STRING); }";
    int rows = 140_000;
    java.util.function.IntFunction<String> value = i -> i % 9 == 4 ? null
        : "abcdefghijklmnopqrstuvwxyz0123456789".repeat(5).substring(0, (i * 7) % 151)
            .replace('a', (char) ('a' + i % 20));
    java.util.function.BiConsumer<Integer, Group> fill = (i, row) -> {
      row.add("id", i);
      if (value.apply(i) != null) {
        row.add("s", value.apply(i));
      }
    };
    for (boolean v2 : new boolean[] {false, true}) {
      Path file = ParquetTestFiles.write(dir.resolve("lengths" + v2 + ".parquet"), schema,
          new ParquetTestFiles.Layout(CompressionCodecName.SNAPPY, false, rows, v2, 0), rows, fill);
      try (Catalog catalog = Catalog.create(dir.resolve("lengths" + v2))) {
        List<List<Object>> values = TestTables.rows(TableImport.run(catalog, "t", List.of(file),
            ImportOptions.defaults()).table());
        for (int i = 0; i < rows; i++) {
          assertEquals(Arrays.asList(i, value.apply(i)), values.get(i), "v2 " + v2 + ", row " + i);
        }
      }
    }
  }

  /**
   * Dictionary pages of text that the commit keeps plain (too many distinct values for a table dictionary) and of
   * text it encodes: the batches carry the entries and each row's one, not the text, which is written only for the
   * plain column; the table is the one of the same rows in plain pages, with batches staged in memory or in files.
   */
  @Test
  void dictionaryTextReadsBackWhetherTheCommitEncodesItOrNot() throws IOException {
    String schema = "message m { required int32 id; optional binary few (STRING); optional binary many (STRING); }";
    int rows = 3_000;
    java.util.function.IntFunction<String> few = i -> i % 17 == 0 ? null : "mode é" + i % 6;
    java.util.function.IntFunction<String> many = i -> i % 13 == 0 ? null : "value " + i % 1_100;
    java.util.function.BiConsumer<Integer, Group> fill = (i, row) -> {
      row.add("id", i);
      if (few.apply(i) != null) {
        row.add("few", few.apply(i));
      }
      if (many.apply(i) != null) {
        row.add("many", many.apply(i));
      }
    };
    Path dictionary = ParquetTestFiles.write(dir.resolve("dictionary.parquet"), schema,
        new ParquetTestFiles.Layout(CompressionCodecName.SNAPPY, true, 1_000), rows, fill);
    Path plain = ParquetTestFiles.write(dir.resolve("plain.parquet"), schema,
        new ParquetTestFiles.Layout(CompressionCodecName.SNAPPY, false, 1_000), rows, fill);
    try (Catalog catalog = Catalog.create(dir.resolve("plain-data"))) {
      StoredTable fromPlain = TableImport.run(catalog, "t", List.of(plain), ImportOptions.defaults()).table();
      for (String staging : new String[] {null, "0"}) {
        String before = System.getProperty(org.spillway.storage.TableWriter.STAGING_MEMORY_PROPERTY);
        try (Catalog other = Catalog.create(dir.resolve("dictionary-data-" + staging))) {
          setOrClear(org.spillway.storage.TableWriter.STAGING_MEMORY_PROPERTY, staging);
          StoredTable table = TableImport.run(other, "t", List.of(dictionary), ImportOptions.defaults()).table();
          assertTrue(table.isDictionaryEncoded(1), "few");
          assertFalse(table.isDictionaryEncoded(2), "many");
          List<List<Object>> values = TestTables.rows(table);
          for (int i = 0; i < rows; i++) {
            assertEquals(Arrays.asList(i, few.apply(i), many.apply(i)), values.get(i),
                "staging " + staging + ", row " + i);
          }
          assertEquals(fromPlain.statistics(), table.statistics(), "staging " + staging);
        } finally {
          setOrClear(org.spillway.storage.TableWriter.STAGING_MEMORY_PROPERTY, before);
        }
      }
    }
  }

  private static void setOrClear(String property, String value) {
    if (value == null) {
      System.clearProperty(property);
    } else {
      System.setProperty(property, value);
    }
  }

  /**
   * Integers, decimals and dates of few distinct values, in dictionary pages (where a batch declares the entries it
   * used, so its statistics take each once) and in plain pages: the same rows, the same statistics.
   */
  @Test
  void dictionaryEncodedNumbersGiveTheStatisticsOfPlainOnes() throws IOException {
    String schema = "message m { required int32 small; optional int64 amount (DECIMAL(12,2)); "
        + "optional int32 day (DATE); optional binary mode (STRING); }";
    java.util.function.BiConsumer<Integer, Group> fill = (i, row) -> {
      row.add("small", i % 7 - 3);
      if (i % 11 != 0) {
        row.add("amount", (i * 37L) % 41 * 100 - 900);
        row.add("day", DAY0 + i / 50);
        row.add("mode", new String[] {"AIR", "MAIL", "SHIP", "TRUCK"}[i % 4]);
      }
    };
    Path dictionary = ParquetTestFiles.write(dir.resolve("dictionary.parquet"), schema,
        new ParquetTestFiles.Layout(CompressionCodecName.SNAPPY, true, 1_000), 3_000, fill);
    Path plain = ParquetTestFiles.write(dir.resolve("plain.parquet"), schema,
        new ParquetTestFiles.Layout(CompressionCodecName.SNAPPY, false, 1_000), 3_000, fill);
    for (String column : List.of("small", "amount", "day", "mode")) {
      assertTrue(onlyDictionaryPages(dictionary, column), column + " in dictionary pages only");
    }
    try (Catalog a = Catalog.create(dir.resolve("a")); Catalog b = Catalog.create(dir.resolve("b"))) {
      StoredTable fromDictionary = TableImport.run(a, "t", List.of(dictionary), ImportOptions.defaults()).table();
      StoredTable fromPlain = TableImport.run(b, "t", List.of(plain), ImportOptions.defaults()).table();
      assertEquals(TestTables.rows(fromPlain), TestTables.rows(fromDictionary));
      assertEquals(fromPlain.statistics(), fromDictionary.statistics());
      assertEquals(7, fromDictionary.statistics().columns().get(0).distinctCount());
      assertTrue(fromDictionary.statistics().columns().get(2).sorted(), "the days ascend");
    }
  }

  private static boolean onlyDictionaryPages(Path file, String column) {
    return ParquetSource.open(file, TimestampMode.REJECT).footer().getBlocks().stream()
        .flatMap(rowGroup -> rowGroup.getColumns().stream())
        .filter(chunk -> chunk.getPath().toDotString().equals(column))
        .allMatch(chunk -> !chunk.getEncodingStats().hasNonDictionaryEncodedPages());
  }

  /** Whether a chunk of the column holds both dictionary-encoded and plain data pages. */
  private static boolean mixesDictionaryAndPlainPages(Path file, String column) {
    return ParquetSource.open(file, TimestampMode.REJECT).footer().getBlocks().stream()
        .flatMap(rowGroup -> rowGroup.getColumns().stream())
        .filter(chunk -> chunk.getPath().toDotString().equals(column))
        .anyMatch(chunk -> chunk.getEncodingStats().hasDictionaryEncodedPages()
            && chunk.getEncodingStats().hasNonDictionaryEncodedPages());
  }

  /**
   * Row groups decoded on four threads make the table one thread makes: the same rows in the same order, the same
   * statistics and the same dictionary decisions; and the statistics are those of the values (exact for the few
   * flags, the comments' distinct count estimated).
   */
  @Test
  void parallelDecodeMatchesSerial() throws IOException {
    int rows = 6_000;
    Path file = ParquetTestFiles.write(dir.resolve("groups.parquet"), ALL_TYPES,
        new ParquetTestFiles.Layout(CompressionCodecName.SNAPPY, true, 500), rows, ParquetImportTest::fill);
    try (Catalog serial = Catalog.create(dir.resolve("serial"));
        Catalog parallel = Catalog.create(dir.resolve("parallel"))) {
      StoredTable one = TableImport.run(serial, "t", List.of(file), ImportOptions.defaults().withThreads(1)).table();
      StoredTable four = TableImport.run(parallel, "t", List.of(file), ImportOptions.defaults().withThreads(4))
          .table();
      List<List<Object>> values = TestTables.rows(one);
      assertEquals(values, TestTables.rows(four));
      assertEquals(one.statistics(), four.statistics());
      for (int col = 0; col < one.schema().size(); col++) {
        assertEquals(one.isDictionaryEncoded(col), four.isDictionaryEncoded(col), one.schema().column(col).name());
      }
      assertEquals(rows, values.size());
      ColumnStatistics flag = four.statistics().columns().get(10);
      assertEquals("A", flag.min());
      assertEquals("R", flag.max());
      assertEquals(3, flag.distinctCount());
      assertEquals(rows / 10, flag.nullCount());
      List<String> comments = values.stream().map(r -> (String) r.get(11)).filter(c -> c != null).toList();
      ColumnStatistics comment = four.statistics().columns().get(11);
      assertEquals(java.util.Collections.min(comments), comment.min());
      assertEquals(java.util.Collections.max(comments), comment.max());
      assertEquals(comments.size(), comment.distinctCount(), comments.size() * 0.05);
    }
  }

  private static void fill(int i, Group row) {
    row.add("id", i);
    if (i % 5 != 1) {
      row.add("big", (long) i * 1_000_000_007L - 5_000_000_000_000L);
    }
    if (i % 7 != 2) {
      row.add("tiny", i % 256 - 128);
    }
    if (i % 9 != 3) {
      row.add("unsigned", (int) (4_000_000_000L + i));  // stored bits of an unsigned value above 2^31
    }
    if (i % 4 != 0) {
      row.add("f", i / 4f);
      row.add("d", i * 1.25 - 100);
    }
    if (i % 6 != 5) {
      row.add("price9", i * 101 - 50_000);
      row.add("price15", i * 1_000_003L - 777L);
      row.add("price18", Binary.fromConstantByteArray(
          ByteBuffer.allocate(8).order(ByteOrder.BIG_ENDIAN).putLong(i * 123_456_789L - 99).array()));
      row.add("day", DAY0 + i);
    }
    if (i % 10 != 9) {
      row.add("flag", new String[] {"A", "N", "R"}[i % 3]);
      row.add("comment", "comment " + i + " ünïcödé");
    }
  }

  private static List<Object> expected(int i) {
    boolean decimals = i % 6 != 5;
    boolean floats = i % 4 != 0;
    boolean text = i % 10 != 9;
    return Arrays.asList(i,
        i % 5 != 1 ? (long) i * 1_000_000_007L - 5_000_000_000_000L : null,
        i % 7 != 2 ? i % 256 - 128 : null,
        i % 9 != 3 ? 4_000_000_000L + i : null,
        floats ? (double) (i / 4f) : null,
        floats ? i * 1.25 - 100 : null,
        decimals ? BigDecimal.valueOf(i * 101 - 50_000, 2) : null,
        decimals ? BigDecimal.valueOf(i * 1_000_003L - 777L, 2) : null,
        decimals ? BigDecimal.valueOf(i * 123_456_789L - 99, 4) : null,
        decimals ? DAY0 + i : null,
        text ? new String[] {"A", "N", "R"}[i % 3] : null,
        text ? "comment " + i + " ünïcödé" : null);
  }

  /** TIMESTAMP is refused unless asked for as a date or as microseconds; every unit and INT96 convert alike. */
  @Test
  void timestampsAreRefusedOrConvertedAsAsked() throws IOException {
    long micros = LocalDate.of(2024, 2, 29).toEpochDay() * 86_400_000_000L + 13 * 3_600_000_000L + 1_234_567L;
    Path file = ParquetTestFiles.write(dir.resolve("ts.parquet"), """
        message ts {
          optional int64 ms (TIMESTAMP(MILLIS,true));
          optional int64 us (TIMESTAMP(MICROS,false));
          optional int64 ns (TIMESTAMP(NANOS,true));
          optional int96 legacy;
        }""", new ParquetTestFiles.Layout(CompressionCodecName.UNCOMPRESSED, true, 10), 2, (i, row) -> {
          if (i == 0) {
            row.add("ms", micros / 1000);
            row.add("us", micros);
            row.add("ns", micros * 1000);
            long day = Math.floorDiv(micros, 86_400_000_000L);
            long nanosOfDay = (micros - day * 86_400_000_000L) * 1000;
            row.add("legacy", Binary.fromConstantByteArray(ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN)
                .putLong(nanosOfDay).putInt((int) (day + 2_440_588)).array()));
          }
        });
    try (Catalog catalog = Catalog.create(dir.resolve("data"))) {
      StorageException refused = assertThrows(StorageException.class,
          () -> TableImport.run(catalog, "ts", List.of(file), ImportOptions.defaults()));
      assertTrue(refused.getMessage().startsWith(file + ": column ms of type INT64 (TIMESTAMP(MILLIS,true))"),
          refused.getMessage());
      assertTrue(refused.getMessage().contains("--timestamps=date"), refused.getMessage());
      assertEquals(List.of(), catalog.tableNames());

      StoredTable asMicros = TableImport.run(catalog, "us", List.of(file),
          ImportOptions.defaults().withTimestamps(TimestampMode.MICROS)).table();
      assertEquals(List.of(List.of(micros - 567, micros, micros, micros), Arrays.asList(null, null, null, null)),
          TestTables.rows(asMicros));
      StoredTable asDates = TableImport.run(catalog, "days", List.of(file),
          ImportOptions.defaults().withTimestamps(TimestampMode.DATE)).table();
      int day = (int) LocalDate.of(2024, 2, 29).toEpochDay();
      assertEquals(List.of(day, day, day, day), TestTables.rows(asDates).get(0));
    }
  }

  /** A file without rows makes an empty table of its columns. */
  @Test
  void emptyFileMakesAnEmptyTable() throws IOException {
    Path file = ParquetTestFiles.write(dir.resolve("empty.parquet"), ALL_TYPES,
        new ParquetTestFiles.Layout(CompressionCodecName.ZSTD, true, 100), 0, ParquetImportTest::fill);
    try (Catalog catalog = Catalog.create(dir.resolve("data"))) {
      StoredTable table = TableImport.run(catalog, "empty", List.of(file), ImportOptions.defaults()).table();
      assertEquals(0, table.rowCount());
      assertEquals(12, table.schema().size());
    }
  }

  /** Several files become one table, rows in file order; the import runs their row groups on several threads. */
  @Test
  void filesAppendInOrder() throws IOException {
    String schema = "message m { required int64 k; optional binary s (STRING); }";
    List<Path> files = new ArrayList<>();
    for (int f = 0; f < 3; f++) {
      int first = f * 1000;
      files.add(ParquetTestFiles.write(dir.resolve("part" + f + ".parquet"), schema,
          new ParquetTestFiles.Layout(CompressionCodecName.SNAPPY, true, 150), 1000, (i, row) -> {
            row.add("k", (long) first + i);
            row.add("s", "s" + (first + i) % 13);
          }));
    }
    List<long[]> progress = new ArrayList<>();
    try (Catalog catalog = Catalog.create(dir.resolve("data"))) {
      ImportOptions options = ImportOptions.defaults().withThreads(4).withProgress((done, total) -> {
        synchronized (progress) {
          progress.add(new long[] {done, total});
        }
      });
      StoredTable table = TableImport.run(catalog, "parts", files, options).table();
      List<List<Object>> rows = TestTables.rows(table);
      for (int i = 0; i < 3000; i++) {
        assertEquals(Arrays.asList((long) i, "s" + i % 13), rows.get(i));
      }
      assertTrue(table.statistics().columns().get(0).sorted(), "keys in file order are sorted");
    }
    assertEquals(3000, progress.stream().mapToLong(p -> p[0]).max().orElse(0));
    assertTrue(progress.stream().allMatch(p -> p[1] == 3000), "Parquet footers give the total up front");
  }

  @Test
  void filesWithOtherColumnsAreRefused() throws IOException {
    Path a = ParquetTestFiles.write(dir.resolve("a.parquet"), "message m { required int64 k; }",
        new ParquetTestFiles.Layout(CompressionCodecName.SNAPPY, true, 100), 10, (i, row) -> row.add("k", (long) i));
    Path b = ParquetTestFiles.write(dir.resolve("b.parquet"), "message m { required int32 k; }",
        new ParquetTestFiles.Layout(CompressionCodecName.SNAPPY, true, 100), 10, (i, row) -> row.add("k", i));
    assertFailsWithoutTable(List.of(a, b), b + ": its columns [k INTEGER NOT NULL] differ from those of " + a);
  }

  /** Types Spillway cannot hold name the column and say why; no table is left. */
  @Test
  void typesSpillwayCannotHoldAreRefused() throws IOException {
    assertRefused("message m { optional boolean ok; }", (i, row) -> row.add("ok", true),
        "column ok of type BOOLEAN cannot be imported: Spillway has no BOOLEAN type");
    assertRefused("message m { optional fixed_len_byte_array(16) wide (DECIMAL(30,2)); }",
        (i, row) -> row.add("wide", Binary.fromConstantByteArray(new byte[16])),
        "column wide of type FIXED_LEN_BYTE_ARRAY (DECIMAL(30,2)) cannot be imported: DECIMAL precision above 18");
    assertRefused("message m { optional group xs (LIST) { repeated group list { optional int32 element; } } }",
        (i, row) -> { }, "column xs of type optional group xs (LIST)");
  }

  /**
   * A decimal with more digits than its declared precision fails the import with the row group, the column and the
   * row, from dictionary pages and plain ones alike (the bulk decode keeps the setter's check).
   */
  @Test
  void decimalsWiderThanTheirPrecisionAreRefused() throws IOException {
    String schema = "message m { required int32 id; optional int64 price (DECIMAL(4,2)); }";
    for (long wide : new long[] {12_345L, -12_345L}) {
      for (boolean dictionary : new boolean[] {true, false}) {
        Path file = ParquetTestFiles.write(dir.resolve("wide.parquet"), schema,
            new ParquetTestFiles.Layout(CompressionCodecName.SNAPPY, dictionary, 100), 300, (i, row) -> {
              row.add("id", i);
              row.add("price", i == 250 ? wide : i % 7 * 100L);
            });
        StorageException e = assertFailsWithoutTable(List.of(file), file + ": row group 2: column price: ");
        assertTrue(e.getMessage().contains("batch row 50: unscaled value " + wide + " has more than 4 digits"),
            e.getMessage());
        Files.delete(file);
      }
    }
  }

  private void assertRefused(String schema, java.util.function.BiConsumer<Integer, Group> fill, String message)
      throws IOException {
    Path file = ParquetTestFiles.write(dir.resolve("refused.parquet"), schema,
        new ParquetTestFiles.Layout(CompressionCodecName.SNAPPY, true, 100), 3, fill);
    assertFailsWithoutTable(List.of(file), file + ": " + message);
    Files.delete(file);
  }

  /** Not Parquet at all, and a file cut short: the file and why. */
  @Test
  void unreadableFilesAreRefused() throws IOException {
    Path zero = Files.write(dir.resolve("zero.parquet"), new byte[0]);
    assertFailsWithoutTable(List.of(zero), zero + ": not a readable Parquet file");
    Path valid = ParquetTestFiles.write(dir.resolve("valid.parquet"), ALL_TYPES,
        new ParquetTestFiles.Layout(CompressionCodecName.SNAPPY, true, 500), 1000, ParquetImportTest::fill);
    byte[] bytes = Files.readAllBytes(valid);
    Path cut = Files.write(dir.resolve("cut.parquet"), Arrays.copyOf(bytes, bytes.length / 2));
    assertFailsWithoutTable(List.of(cut), cut + ": not a readable Parquet file");
  }

  /**
   * A page damaged in the middle of the second file fails the import after the first file and the rows before
   * it were written: the message says the file, the row group and why, and no table remains.
   */
  @Test
  void damagedPageFailsWithoutHalfTable() throws IOException {
    String schema = "message m { required int64 k; }";
    Path good = ParquetTestFiles.write(dir.resolve("good.parquet"), schema,
        new ParquetTestFiles.Layout(CompressionCodecName.UNCOMPRESSED, false, 1000), 3000,
        (i, row) -> row.add("k", (long) i));
    Path damaged = ParquetTestFiles.write(dir.resolve("damaged.parquet"), schema,
        new ParquetTestFiles.Layout(CompressionCodecName.UNCOMPRESSED, false, 1000), 3000,
        (i, row) -> row.add("k", (long) i));
    byte[] bytes = Files.readAllBytes(damaged);
    // the second row group's pages lie around the middle of the file; its footer stays intact
    for (int i = bytes.length / 2; i < bytes.length / 2 + 64; i++) {
      bytes[i] ^= 0x5A;
    }
    Files.write(damaged, bytes);
    StorageException e = assertFailsWithoutTable(List.of(good, damaged), damaged + ": row group 1: ");
    assertTrue(e.getMessage().contains("CRC") || e.getMessage().contains("checksum")
        || e.getMessage().contains("decode"), e.getMessage());
  }

  /**
   * A page whose dictionary ids point past the dictionary fails the import with the column and the id, and leaves no
   * table: the ids' width byte of a page of 64 ids alternating between two entries (width 1: a bit-packed run of 8
   * groups, header 0x11, bytes 0xAA) is raised to 8, so that the page's bytes read as ids of 170 and 0.
   */
  @Test
  void dictionaryIdOutsideTheDictionaryFailsWithoutHalfTable() throws IOException {
    Path file = ParquetTestFiles.write(dir.resolve("ids.parquet"), "message m { required binary s (STRING); }",
        new ParquetTestFiles.Layout(CompressionCodecName.UNCOMPRESSED, true, 1000), 64,
        (i, row) -> row.add("s", i % 2 == 0 ? "a" : "b"), false);
    byte[] bytes = Files.readAllBytes(file);
    byte[] ids = {1, 0x11, (byte) 0xAA, (byte) 0xAA, (byte) 0xAA, (byte) 0xAA, (byte) 0xAA, (byte) 0xAA,
        (byte) 0xAA, (byte) 0xAA};
    int at = indexOf(bytes, ids);
    assertTrue(at >= 0, "the page's ids as expected");
    bytes[at] = 8;
    Files.write(file, bytes);
    StorageException e = assertFailsWithoutTable(List.of(file), file + ": row group 0: column s: ");
    assertTrue(e.getMessage().contains("dictionary id 170 outside the 2 entries of column s"), e.getMessage());
  }

  private static int indexOf(byte[] bytes, byte[] part) {
    for (int i = 0; i + part.length <= bytes.length; i++) {
      if (Arrays.equals(bytes, i, i + part.length, part, 0, part.length)) {
        return i;
      }
    }
    return -1;
  }

  private StorageException assertFailsWithoutTable(List<Path> files, String messagePrefix) throws IOException {
    Path data = dir.resolve("data");
    try (Catalog catalog = Catalog.create(data)) {
      StorageException e = assertThrows(StorageException.class,
          () -> TableImport.run(catalog, "t", files, ImportOptions.defaults().withThreads(2)));
      assertTrue(e.getMessage().startsWith(messagePrefix), e.getMessage());
      assertEquals(List.of(), catalog.tableNames());
    }
    try (Stream<Path> left = Files.list(data)) {
      assertEquals(List.of(), left.toList(), "no table and no scratch directory is left");
    }
    return assertThrows(StorageException.class, () -> {
      try (Catalog catalog = Catalog.open(data)) {
        TableImport.run(catalog, "t", files, ImportOptions.defaults().withThreads(1));
      }
    });
  }
}
