package org.spillway.tpch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.spillway.storage.Catalog;
import org.spillway.storage.StorageException;
import org.spillway.storage.TableWriter;

/** A generation killed mid-way leaves nothing a later open keeps, is detected, and is redone. */
class InterruptedGenerationTest {
  @TempDir
  Path dir;

  private List<String> entries() throws IOException {
    try (Stream<Path> paths = Files.list(dir)) {
      return paths.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  private boolean stagedBatchExists() throws IOException {
    try (Stream<Path> paths = Files.walk(dir)) {
      return paths.anyMatch(p -> p.getParent().getFileName().toString().equals("staging")
          && p.getFileName().toString().endsWith(".arrow"));
    }
  }

  @Test
  void aGeneratorKilledWhileWritingLeavesOnlyScratchThatTheNextOpenDeletes() throws Exception {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    // batches staged in files, not in memory, so that the kill lands while a table's files are being written
    Process child = new ProcessBuilder(java.toString(), "--add-opens=java.base/java.nio=ALL-UNNAMED",
        "-D" + TableWriter.STAGING_MEMORY_PROPERTY + "=0",
        "-cp", System.getProperty("java.class.path"), TpchGenerator.class.getName(), dir.toString(), "0.5", "1")
        .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
      while (!stagedBatchExists()) {
        assertTrue(child.isAlive(), "the generator ended before it was killed");
        assertTrue(System.nanoTime() < deadline, "no batch staged in 120 s");
        Thread.sleep(20);
      }
    } finally {
      child.destroyForcibly();  // SIGKILL: no shutdown hook, no cleanup
      child.waitFor();
    }
    assertTrue(TpchGenerator.interrupted(dir));
    assertTrue(entries().stream().anyMatch(e -> e.contains(".tmp-")), entries().toString());
    try (Catalog catalog = Catalog.open(dir)) {
      assertEquals(List.of(), catalog.tableNames());
    }
    assertEquals(List.of(TpchGenerator.IN_PROGRESS), entries(), "scratch deleted, the marker says what happened");
    // nothing was committed, so a plain generate redoes it
    TpchGenerator.generate(dir, 0.001, 1, ProgressListener.NONE);
    assertFalse(TpchGenerator.interrupted(dir));
    try (Catalog catalog = Catalog.open(dir)) {
      assertEquals(TpchSchema.TABLE_NAMES.stream().sorted().toList(), catalog.tableNames());
    }
  }

  @Test
  void aPartialSetOfTablesIsRefusedThenReplacedByRegenerate() throws IOException {
    TpchGenerator.generate(dir, 0.001, 1, ProgressListener.NONE);
    // what a kill after two tables committed leaves: some tables, and the marker nobody holds
    try (Catalog catalog = Catalog.open(dir)) {
      TpchSchema.TABLE_NAMES.stream().filter(t -> !t.equals("nation") && !t.equals("region"))
          .forEach(catalog::dropTable);
    }
    Files.createFile(dir.resolve(TpchGenerator.IN_PROGRESS));
    assertTrue(TpchGenerator.interrupted(dir));
    StorageException e = assertThrows(StorageException.class,
        () -> TpchGenerator.generate(dir, 0.001, 1, ProgressListener.NONE));
    assertTrue(e.getMessage().contains("already holds TPC-H tables nation, region of an interrupted generation;"
        + " run 'spillway generate --force'"), e.getMessage());
    TpchGenerator.regenerate(dir, 0.001, 1, ProgressListener.NONE);
    assertFalse(TpchGenerator.interrupted(dir));
    assertFalse(Files.exists(dir.resolve(TpchGenerator.IN_PROGRESS)));
    try (Catalog catalog = Catalog.open(dir)) {
      assertEquals(TpchSchema.TABLE_NAMES.stream().sorted().toList(), catalog.tableNames());
      assertTrue(catalog.table("lineitem").orElseThrow().rowCount() > 5000);
    }
  }
}
