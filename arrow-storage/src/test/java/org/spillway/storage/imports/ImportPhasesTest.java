package org.spillway.storage.imports;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.spillway.storage.Catalog;
import org.spillway.storage.StorageAllocator;

/** The timeline of an import's phases: each phase measured once, in order, adding up to the import's time. */
class ImportPhasesTest {
  private static final String SCHEMA = """
      message t {
        required int64 id;
        optional binary note (STRING);
      }""";

  @TempDir Path dir;

  @AfterEach
  void noArrowMemoryLeft() {
    // the catalog's memory (the staged batches' recycled memory is checked by the storage package's tests)
    assertEquals(0, StorageAllocator.root().getAllocatedMemory());
  }

  private Path file(int rows, int rowGroupRows) throws IOException {
    return ParquetTestFiles.write(dir.resolve("t" + rows + ".parquet"), SCHEMA,
        new ParquetTestFiles.Layout(CompressionCodecName.SNAPPY, true, rowGroupRows), rows, (i, row) -> {
          row.add("id", (long) i);
          row.add("note", "note " + (i % 17));
        });
  }

  @Test
  void phasesOfAnImportOnSeveralThreadsAddUpToItsTime() throws IOException {
    Path file = file(20_000, 1_000);
    try (Catalog catalog = Catalog.create(dir.resolve("data"))) {
      ImportResult result = TableImport.run(catalog, "t", List.of(file), ImportOptions.defaults().withThreads(3));
      ImportPhases phases = result.phases();
      assertEquals(20_000, result.rows());
      for (long nanos : new long[] {phases.openNanos(), phases.parallelNanos(), phases.tailNanos(),
          phases.commitNanos()}) {
        assertTrue(nanos >= 0, phases.toString());
      }
      assertTrue(phases.parallelNanos() > 0 && phases.commitNanos() > 0, phases.toString());
      // the clock starts with the import and stops just before its result: no phase is counted twice or left out
      assertTrue(phases.totalNanos() <= result.nanos(), phases + " against " + result.nanos());
      assertTrue(phases.totalNanos() > result.nanos() * 0.9, phases + " against " + result.nanos());
      for (long cpu : new long[] {phases.openCpuNanos(), phases.parallelCpuNanos(), phases.tailCpuNanos(),
          phases.commitCpuNanos()}) {
        assertTrue(cpu >= 0, "this JVM tells the process's CPU time: " + phases);
      }
      assertTrue(phases.describe().matches("open [0-9.]+ s \\([0-9.]+ CPU-s\\), parallel .*, tail .*, commit .*"),
          phases.describe());
    }
  }

  @Test
  void oneThreadHasNoTailBeyondItsLastPiece() throws IOException {
    Path file = file(8_000, 1_000);
    try (Catalog catalog = Catalog.create(dir.resolve("data"))) {
      ImportPhases phases = TableImport.run(catalog, "t", List.of(file), ImportOptions.defaults().withThreads(1))
          .phases();
      // the only thread finds no piece left once its last one ends, which is when every piece is done
      assertTrue(phases.tailNanos() < phases.parallelNanos(), phases.toString());
    }
  }

  @Test
  void anImportWithoutPiecesHasOnlyItsOpenAndCommit() throws IOException {
    Path file = file(0, 1_000);
    try (Catalog catalog = Catalog.create(dir.resolve("data"))) {
      ImportResult result = TableImport.run(catalog, "t", List.of(file), ImportOptions.defaults().withThreads(2));
      assertEquals(0, result.rows());
      assertEquals(0, result.phases().parallelNanos(), result.phases().toString());
      assertEquals(0, result.phases().tailNanos(), result.phases().toString());
      assertTrue(result.phases().openNanos() > 0 && result.phases().commitNanos() > 0, result.phases().toString());
    }
  }

  @Test
  void eachMomentCountsOnce() throws InterruptedException {
    ImportPhases.Clock clock = new ImportPhases.Clock();
    clock.pieceStarted();
    Thread.sleep(5);
    clock.pieceStarted();  // later pieces leave the open phase as it was
    clock.threadIdle();
    Thread.sleep(5);
    clock.threadIdle();  // a second idle thread does not move the tail's start
    clock.piecesDone();
    ImportPhases phases = clock.end();
    assertTrue(phases.parallelNanos() >= 5_000_000, phases.toString());
    assertTrue(phases.tailNanos() >= 5_000_000, phases.toString());
  }

  @Test
  void momentsNotReachedTakeTheOneAfter() {
    ImportPhases.Clock clock = new ImportPhases.Clock();
    clock.piecesDone();  // no piece ever started: the time before this is the open phase's
    ImportPhases phases = clock.end();
    assertEquals(0, phases.parallelNanos(), phases.toString());
    assertEquals(0, phases.tailNanos(), phases.toString());
    assertEquals(0, phases.parallelCpuNanos(), phases.toString());
    assertEquals(0, ImportPhases.UNKNOWN.totalNanos());
    assertEquals("open 0.000 s, parallel 0.000 s, tail 0.000 s, commit 0.000 s", ImportPhases.UNKNOWN.describe());
  }
}
