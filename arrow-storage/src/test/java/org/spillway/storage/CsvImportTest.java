package org.spillway.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CsvImportTest {
  private static final TableSchema ORDERS = TableSchema.of(
      ColumnDef.of("o_orderkey", "INTEGER NOT NULL"),
      ColumnDef.of("o_totalprice", "DECIMAL(15,2) NOT NULL"),
      ColumnDef.of("o_orderdate", "DATE"),
      ColumnDef.of("o_comment", "VARCHAR(40)"));

  @TempDir
  Path dir;

  @AfterEach
  void allocatorBackToZero() {
    StorageLeaks.assertNone();
  }

  private Path csv(String name, String content) throws IOException {
    return Files.writeString(dir.resolve(name), content);
  }

  private Path dataDir() throws IOException {
    return Files.createDirectories(dir.resolve("data"));
  }

  @Test
  void importsQuotedFieldsNullsAndLineBreaks() throws IOException {
    Path file = csv("orders.csv", "o_orderkey,o_totalprice,o_orderdate,o_comment\r\n"
        + "1,10.50,1996-01-02,\"plain, with comma\"\r\n"
        + "2,-0.01,,\"say \"\"hi\"\"\"\n"
        + "\n"
        + "3,7,1998-12-01,\"two\nlines\"\n"
        + "4,0.00,1992-01-01,\"\"\n"
        + "5,123.4,1992-01-01,\n");
    try (Catalog catalog = Catalog.create(dataDir())) {
      StoredTable table = catalog.importCsv("orders", file, CsvOptions.defaults().withSchema(ORDERS));
      assertEquals(List.of(
          Arrays.asList(1, new BigDecimal("10.50"), day("1996-01-02"), "plain, with comma"),
          Arrays.asList(2, new BigDecimal("-0.01"), null, "say \"hi\""),
          Arrays.asList(3, new BigDecimal("7.00"), day("1998-12-01"), "two\nlines"),
          Arrays.asList(4, new BigDecimal("0.00"), day("1992-01-01"), ""),
          Arrays.asList(5, new BigDecimal("123.40"), day("1992-01-01"), null)), TestTables.rows(table));
    }
  }

  @Test
  void infersTypesFromASample() throws IOException {
    Path file = csv("mixed.csv", "Id;Big;Price;Ratio;Day;Name\n"
        + "1;5000000000;1.5;1e3;2020-02-29;a\n"
        + "2;-7;-22.25;0.5;2021-01-01;\\N\n"
        + "\\N;3;0;2;2022-12-31;c\n");
    CsvOptions options = CsvOptions.defaults().withDelimiter(';').withNullToken("\\N");
    try (Catalog catalog = Catalog.create(dataDir())) {
      StoredTable table = catalog.importCsv("mixed", file, options);
      assertEquals(TableSchema.of(ColumnDef.of("id", "INTEGER"), ColumnDef.of("big", "BIGINT"),
          ColumnDef.of("price", "DECIMAL(18,2)"), ColumnDef.of("ratio", "DOUBLE"), ColumnDef.of("day", "DATE"),
          ColumnDef.of("name", "VARCHAR")), table.schema());
      assertEquals(Arrays.asList(null, 3L, new BigDecimal("0.00"), 2.0, day("2022-12-31"), "c"),
          TestTables.rows(table).get(2));
    }
  }

  @Test
  void readsTpchTblFiles() throws IOException {
    Path file = csv("orders.tbl", "1|173665.47|1996-01-02|nstructions sleep furiously among |\n"
        + "2|46929.18|1996-12-01| foxes. pending accounts at the pending|\n");
    try (Catalog catalog = Catalog.create(dataDir())) {
      StoredTable table = catalog.importCsv("orders", file, CsvOptions.tpchTbl(ORDERS));
      assertEquals(2, table.rowCount());
      assertEquals(new BigDecimal("46929.18"), TestTables.rows(table).get(1).get(1));
    }
  }

  /** Issue #12 item 9: a line of 1.5 million fields fails with its line number, not OutOfMemoryError. */
  @Test
  void lineOfMillionsOfFieldsNamesItsLine() throws IOException {
    StringBuilder content = new StringBuilder("o_orderkey,o_totalprice,o_orderdate,o_comment\n1,1.00,1996-01-02,ok\n");
    content.append("2,").append(",".repeat(1_500_000)).append('\n');
    assertImportFails(csv("wide.csv", content.toString()), CsvOptions.defaults().withSchema(ORDERS),
        "wide.csv:3: more than " + CsvRecordReader.MAX_FIELDS + " fields in one record");
  }

  @Test
  void badDecimalNamesFileLineAndColumn() throws IOException {
    StringBuilder content = new StringBuilder("o_orderkey,o_totalprice,o_orderdate,o_comment\n");
    for (int key = 1; key <= 15; key++) {
      content.append(key).append(",1.00,1996-01-02,ok\n");
    }
    content.append("16,abc,1996-01-02,bad\n");
    assertImportFails(csv("orders.csv", content.toString()), CsvOptions.defaults().withSchema(ORDERS),
        "orders.csv:17: column o_totalprice: 'abc' is not a DECIMAL(15,2)");
  }

  @Test
  void otherBadRowsAreRejectedWithTheirLine() throws IOException {
    CsvOptions options = CsvOptions.defaults().withSchema(ORDERS);
    String header = "o_orderkey,o_totalprice,o_orderdate,o_comment\n";
    assertImportFails(csv("a.csv", header + "1,1.00,1996-01-02,x\n2,1.00,1996-01-02\n"), options,
        "a.csv:3: expected 4 fields, found 3");
    assertImportFails(csv("b.csv", header + "1,1.001,1996-01-02,x\n"), options,
        "b.csv:2: column o_totalprice: '1.001' is not a DECIMAL(15,2)");
    assertImportFails(csv("c.csv", header + "x,1.00,1996-01-02,x\n"), options,
        "c.csv:2: column o_orderkey: 'x' is not an INTEGER");
    assertImportFails(csv("d.csv", header + "1,1.00,1996-02-30,x\n"), options,
        "d.csv:2: column o_orderdate: '1996-02-30' is not a DATE");
    assertImportFails(csv("e.csv", header + "1,1.00,1996-01-02,\"open\n"), options,
        "e.csv:2: unterminated quoted field");
    assertImportFails(csv("f.csv", header + ",1.00,1996-01-02,x\n"), options,
        "f.csv:2: column o_orderkey: NULL in a NOT NULL column");
    assertImportFails(csv("g.csv", header + "1,1.00,1996-01-02," + "y".repeat(41) + "\n"), options,
        "g.csv:2: column o_comment: value of length 41 exceeds VARCHAR(40)");
    assertImportFails(csv("h.csv", "o_orderkey,price,o_orderdate,o_comment\n"), options,
        "h.csv:1: header column 2 is 'price', the schema says 'o_totalprice'");
  }

  @Test
  void failureAfterManyBatchesLeavesNothingBehind() throws IOException {
    int goodRows = CsvImporter.BATCH_ROWS + 10;
    StringBuilder content = new StringBuilder();
    for (int key = 1; key <= goodRows; key++) {
      content.append(key).append(",1.00,1996-01-02,ok\n");
    }
    content.append("x,1.00,1996-01-02,ok\n");
    assertImportFails(csv("big.csv", content.toString()), CsvOptions.defaults().withHeader(false).withSchema(ORDERS),
        "big.csv:" + (goodRows + 1) + ": column o_orderkey: 'x' is not an INTEGER");
  }

  @Test
  void inferredTypeViolationHintsAtTheSample() throws IOException {
    StringBuilder content = new StringBuilder("k\n");
    for (int i = 0; i < 20; i++) {
      content.append(i).append('\n');
    }
    content.append("4.5\n");
    StorageException e = assertImportFails(csv("k.csv", content.toString()), CsvOptions.defaults().withSampleRows(10),
        "k.csv:22: column k: '4.5' is not an INTEGER (type inferred from the first 10 rows");
    assertTrue(e.getMessage().endsWith("pass a schema in CsvOptions)"), e.getMessage());
  }

  private StorageException assertImportFails(Path file, CsvOptions options, String messagePrefix) throws IOException {
    Path data = dataDir();
    StorageException failure;
    try (Catalog catalog = Catalog.open(data)) {
      failure = assertThrows(StorageException.class, () -> catalog.importCsv("orders", file, options));
      assertTrue(failure.getMessage().startsWith(messagePrefix), "message: " + failure.getMessage());
      assertTrue(catalog.tableNames().isEmpty());
      assertEquals(0, catalog.allocatedBytes());
    }
    try (Stream<Path> left = Files.list(data)) {
      assertEquals(List.of(), left.toList(), "nothing may remain in the data directory");
    }
    return failure;
  }

  private static Integer day(String iso) {
    return (int) LocalDate.parse(iso).toEpochDay();
  }

  @Test
  void invalidUtf8FailsWithItsLineAndLeavesNoTable() throws IOException {
    StringBuilder text = new StringBuilder("o_orderkey,o_totalprice,o_orderdate,o_comment\n");
    for (int i = 1; i <= 5000; i++) {  // more than the reader's 64 KiB buffer before the bad byte
      text.append(i).append(",1.00,1996-01-02,caf\u00e9 ").append(i).append('\n');
    }
    byte[] head = text.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
    byte[] bad = "5001,1.00,1996-01-02,caf\u00e9".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
    Path file = dir.resolve("latin1.csv");
    Files.write(file, head);
    Files.write(file, bad, java.nio.file.StandardOpenOption.APPEND);
    try (Catalog catalog = Catalog.create(dataDir())) {
      StorageException e = assertThrows(StorageException.class,
          () -> catalog.importCsv("orders", file, CsvOptions.defaults().withSchema(ORDERS)));
      assertEquals("latin1.csv:5002: invalid UTF-8 at byte offset " + (head.length + bad.length - 1), e.getMessage());
      assertEquals(List.of(), catalog.tableNames());
    }
  }

  @Test
  void aByteOrderMarkIsSkipped() throws IOException {
    Path file = csv("bom.csv", "\uFEFFo_orderkey,o_totalprice,o_orderdate,o_comment\n1,2.50,1996-01-02,x\n");
    try (Catalog catalog = Catalog.create(dataDir())) {
      StoredTable inferred = catalog.importCsv("inferred", file, CsvOptions.defaults());
      assertEquals("o_orderkey", inferred.schema().column(0).name());
      StoredTable declared = catalog.importCsv("declared", file, CsvOptions.defaults().withSchema(ORDERS));
      assertEquals(List.of(Arrays.asList(1, new BigDecimal("2.50"), day("1996-01-02"), "x")), TestTables.rows(declared));
    }
  }
}
