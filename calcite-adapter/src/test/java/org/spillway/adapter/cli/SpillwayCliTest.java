package org.spillway.adapter.cli;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.spillway.adapter.CatalogRegistry;
import org.spillway.tpch.ProgressListener;
import org.spillway.tpch.TpchGenerator;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Runs the command line in-process: -e, -f, errors, and generate into a fresh directory. */
class SpillwayCliTest {
  @TempDir static Path tmp;
  static Path data;

  @BeforeAll static void generate() {
    data = tmp.resolve("tpch");
    TpchGenerator.generate(data, 0.001, 2, ProgressListener.NONE);
  }

  @AfterAll static void release() {
    CatalogRegistry.close(data);
  }

  /** Output of one run: exit code, stdout, stderr. */
  record Run(int code, String out, String err) {}

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

  @Test void executePrintsATable() {
    Run r = run("-d", data.toString(), "-e", "select count(*) as n from nation");
    assertEquals(0, r.code(), r.err());
    assertEquals("+----+\n| n  |\n+----+\n| 25 |\n+----+\n", r.out());
    assertTrue(r.err().contains("(1 row, "), r.err());
  }

  /** EXPLAIN ANALYZE prints the plan, then the report of every operator, as the rows of one column. */
  @Test void explainAnalyzePrintsThePlanAndTheOperators() {
    Run r = run("-d", data.toString(), "--device", "cpu", "-e",
        "explain analyze select n_regionkey, count(*) as n from nation group by n_regionkey");
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().contains("SpillwayAggregate(group=[{0}]"), r.out());
    assertTrue(r.out().contains("EXPLAIN ANALYZE: 5 rows in "), r.out());
    assertTrue(r.out().matches("(?s).*\\| operator +\\| device \\| rows \\| time ms \\| predicted ms"
        + " \\| link GB \\| GB/s \\|.*"), r.out());
    assertTrue(r.out().matches("(?s).*\\| pipeline over nation +\\| cpu +\\| +5 \\|.*"), r.out());
  }

  @Test void fileRunsEveryStatementAsCsv() throws Exception {
    Path script = tmp.resolve("q.sql");
    Files.writeString(script, "select r_name from region where r_regionkey < 2 order by 1;\n"
        + "select count(*) as c from region;\n");
    Run r = run("-d", data.toString(), "-f", script.toString(), "--format", "csv");
    assertEquals(0, r.code(), r.err());
    assertEquals("r_name\nAFRICA\nAMERICA\nc\n5\n", r.out());
  }

  @Test void executionOptionsBecomeConnectionProperties() {
    Run r = run("-d", data.toString(), "--transfer", "zero-copy", "--filter-variant", "predication",
        "--gpu-cache", "1g", "-e", "select count(*) as n from nation where n_regionkey = 1");
    assertEquals(0, r.code(), r.err());
    assertEquals("+---+\n| n |\n+---+\n| 5 |\n+---+\n", r.out());
    Run window = run("-d", data.toString(), "--index-join-window", "4m", "-e", "select count(*) as n from region");
    assertEquals(0, window.code(), window.err());
    Run badWindow = run("-d", data.toString(), "--index-join-window", "4", "-e", "select 1");
    assertEquals(1, badWindow.code());
    assertTrue(badWindow.err().contains("Property 'indexJoinWindow' must be a byte count from 8 to 1g"),
        badWindow.err());
    Run bad = run("-d", data.toString(), "--filter-variant", "sideways", "-e", "select 1");
    assertEquals(1, bad.code());
    assertTrue(bad.err().contains("Property 'filterVariant' must be auto, branching or predication, not 'sideways'"),
        bad.err());
  }

  @Test void badSqlFailsWithTheParserMessage() {
    Run r = run("-d", data.toString(), "-e", "select count(*) from region; selec 1");
    assertEquals(1, r.code());
    assertTrue(r.err().contains("statement 2:"), r.err());
    assertTrue(r.err().toLowerCase().contains("parse"), r.err());
  }

  @Test void missingExplicitDirectoryIsAnErrorNotAGeneration() {
    Path missing = tmp.resolve("no-such-dir");
    Run r = run("-d", missing.toString(), "-e", "select 1");
    assertEquals(1, r.code());
    assertTrue(r.err().contains(missing + " does not exist"), r.err());
    assertTrue(Files.notExists(missing));
  }

  /**
   * import reads Spillway's own Arrow files (dictionary-encoded text, DECIMAL as scaled integers) back into a table
   * that answers as the original, and reports the speed; a bad file fails with its name and leaves no table.
   */
  @Test void importMakesATableAndReportsItsSpeed() throws Exception {
    Path target = tmp.resolve("imported");
    Path[] parts;
    try (var files = Files.list(data.resolve("orders"))) {
      parts = files.filter(f -> f.toString().endsWith(".arrow")).sorted().toArray(Path[]::new);
    }
    String[] args = new String[parts.length + 5];
    System.arraycopy(new String[] {"import", "--data-dir", target.toString(), "--table", "orders2"}, 0, args, 0, 5);
    for (int i = 0; i < parts.length; i++) {
      args[5 + i] = parts[i].toString();
    }
    Run imported = run(args);
    assertEquals(0, imported.code(), imported.err());
    assertTrue(imported.err().matches("(?s).*Imported 1,500 rows into table orders2 of .* MB/s\n"), imported.err());
    String sum = "select count(distinct o_orderstatus) || ' ' || sum(o_totalprice) from ";
    assertEquals(run("-d", data.toString(), "--format", "csv", "-e", sum + "orders").out(),
        run("-d", target.toString(), "--format", "csv", "-e", sum + "orders2").out());

    Path bad = Files.writeString(tmp.resolve("bad.parquet"), "not parquet");
    Run failed = run("import", "--data-dir", target.toString(), "--table", "bad", bad.toString());
    assertEquals(1, failed.code());
    assertTrue(failed.err().startsWith("spillway: " + bad + ": not a readable Parquet file"), failed.err());
    assertTrue(!Files.exists(target.resolve("bad")), "no table is left");
    CatalogRegistry.close(target);
  }

  @Test void generateRejectsANonPositiveScaleFactor() {
    Run r = run("generate", "--sf", "0", "--dir", tmp.resolve("g").toString());
    assertEquals(1, r.code());
    assertTrue(r.err().contains("--sf must be positive"), r.err());
  }
}
