package org.spillway.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** The bytes of a stored table's Arrow files in name order, for tests that compare two ways of writing a table. */
final class ArrowFilesOfTable {
  private ArrowFilesOfTable() {}

  /** Every {@code .arrow} file of the table's directory, which must hold {@code expected} of them. */
  static List<byte[]> read(StoredTable table, int expected) throws IOException {
    List<byte[]> files = new ArrayList<>();
    try (Stream<Path> entries = Files.list(table.directory())) {
      for (Path file : entries.filter(p -> p.toString().endsWith(".arrow")).sorted().toList()) {
        files.add(Files.readAllBytes(file));
      }
    }
    assertEquals(expected, files.size());
    return files;
  }
}
