package org.spillway.adapter.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.spillway.adapter.CatalogRegistry;
import org.spillway.gpu.SpillwayHome;
import org.spillway.storage.Catalog;
import org.spillway.tpch.ProgressListener;
import org.spillway.tpch.TpchGenerator;
import org.spillway.tpch.TpchSchema;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Data directories that a killed generation left: the default one is generated again instead of answering
 * "Object 'lineitem' not found" forever; an explicit one says how to redo it; generate --force and drop-table
 * complete or clear a partial catalog.
 */
class DataDirRecoveryTest {
  @TempDir Path tmp;

  private record Run(int code, String out, String err) {}

  private static Run run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream oldOut = System.out;
    PrintStream oldErr = System.err;
    try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
         PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
      System.setOut(o);
      System.setErr(e);
      int code = SpillwayCli.run(args, e);
      return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    } finally {
      System.setOut(oldOut);
      System.setErr(oldErr);
    }
  }

  /** What a generation killed after committing nation and region leaves (its marker, unlocked). */
  private static void partialGeneration(Path dir) throws IOException {
    TpchGenerator.generate(dir, 0.001, 1, ProgressListener.NONE);
    try (Catalog catalog = Catalog.open(dir)) {
      TpchSchema.TABLE_NAMES.stream().filter(t -> !t.equals("nation") && !t.equals("region"))
          .forEach(catalog::dropTable);
    }
    Files.createFile(dir.resolve(".tpch-generation.lock"));
  }

  @Test void theDefaultDirectoryOfAKilledFirstUseIsGeneratedAgain() throws IOException {
    String saved = System.getProperty(SpillwayHome.PROPERTY);
    System.setProperty(SpillwayHome.PROPERTY, tmp.resolve("home").toString());
    Path dir = DataDirOptions.defaultDataDir();
    try {
      partialGeneration(dir);
      Run r = run("--sf", "0.001", "-e", "select count(*) as n from lineitem where l_orderkey > 0");
      assertEquals(0, r.code(), r.err());
      assertTrue(r.err().contains("is incomplete (an earlier generation was interrupted); generating it again"),
          r.err());
      assertTrue(r.out().contains("| 6005 |"), r.out());
    } finally {
      CatalogRegistry.close(dir);
      System.setProperty(SpillwayHome.PROPERTY, saved);
    }
  }

  @Test void anExplicitDirectoryIsRedoneWithGenerateForceOrCleared() throws IOException {
    Path dir = tmp.resolve("data");
    partialGeneration(dir);
    Run refused = run("-d", dir.toString(), "-e", "select 1");
    assertEquals(1, refused.code());
    assertTrue(refused.err().contains("the TPC-H generation into " + dir + " was interrupted; run: spillway generate"
        + " --force --sf 1.0 --dir " + dir), refused.err());
    Run plain = run("generate", "--sf", "0.001", "--dir", dir.toString());
    assertEquals(1, plain.code());
    assertTrue(plain.err().contains("of an interrupted generation; run 'spillway generate --force'"), plain.err());

    Run dropped = run("drop-table", "--dir", dir.toString(), "nation", "region");
    assertEquals(0, dropped.code(), dropped.err());
    try (Catalog catalog = Catalog.open(dir)) {
      assertEquals(List.of(), catalog.tableNames());
    }
    Run forced = run("generate", "--force", "--sf", "0.001", "--dir", dir.toString());
    assertEquals(0, forced.code(), forced.err());
    try (Catalog catalog = Catalog.open(dir)) {
      assertEquals(TpchSchema.TABLE_NAMES.stream().sorted().toList(), catalog.tableNames());
    }
    assertEquals(false, TpchGenerator.interrupted(dir));
  }
}
