package org.spillway.tests;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Comparator;
import java.util.stream.Stream;
import org.spillway.adapter.CatalogRegistry;
import org.spillway.tpch.ProgressListener;
import org.spillway.tpch.TpchGenerator;

/**
 * One TPC-H data set held twice: as a Spillway catalog written by {@link TpchGenerator} and as tables of an
 * in-memory DuckDB database loaded by {@link DuckDbTpchLoader} from the same generator rows. Closing it
 * closes DuckDB and deletes the files.
 */
public final class TpchDataSet implements AutoCloseable {
  /**
   * Scale factor of the shared data set: 0.01 (about 87,000 rows in all, small enough for every CI run)
   * unless the system property {@code spillway.tests.sf} asks for another, e.g. {@code -Dspillway.tests.sf=0.1}.
   */
  public static final double SCALE_FACTOR = Double.parseDouble(System.getProperty("spillway.tests.sf", "0.01"));

  private final Path root;
  private final Path dataDir;
  private final Connection duckDb;
  private Connection spillway;

  private TpchDataSet(Path root, Path dataDir, Connection duckDb) {
    this.root = root;
    this.dataDir = dataDir;
    this.duckDb = duckDb;
  }

  /** Generates both copies of the data set at {@code sf} under a new temporary directory. */
  public static TpchDataSet create(double sf) throws IOException, SQLException {
    Path root = Files.createTempDirectory("spillway-tpch-");
    Path dataDir = root.resolve("spillway");
    long start = System.nanoTime();
    long generated;
    Connection duckDb;
    try {
      TpchGenerator.generate(dataDir, sf, Runtime.getRuntime().availableProcessors(), ProgressListener.NONE);
      generated = System.nanoTime();
      duckDb = DuckDbTpchLoader.load(sf, root.resolve("duckdb-csv"));
    } catch (IOException | SQLException | RuntimeException e) {
      deleteRecursively(root);
      throw e;
    }
    // Printed, not asserted: the surefire output file records what data set setup costs on this machine.
    System.out.printf("TPC-H SF %s: Spillway catalog generated in %.1f s, DuckDB loaded in %.1f s%n", sf,
        (generated - start) / 1e9, (System.nanoTime() - generated) / 1e9);
    return new TpchDataSet(root, dataDir, duckDb);
  }

  /** The Spillway catalog directory. */
  public Path dataDir() {
    return dataDir;
  }

  /** JDBC URL of a Spillway connection to the catalog. */
  public String spillwayUrl() {
    return "jdbc:spillway:dataDir=" + dataDir.toAbsolutePath();
  }

  /** A Spillway connection to the catalog, opened on first use; shared, so callers must not close it. */
  public synchronized Connection spillway() throws SQLException {
    if (spillway == null) {
      spillway = DriverManager.getConnection(spillwayUrl());
    }
    return spillway;
  }

  /** The DuckDB connection holding the oracle's copy; shared, so callers must not close it. */
  public Connection duckDb() {
    return duckDb;
  }

  @Override public void close() throws SQLException {
    try {
      if (spillway != null) {
        spillway.close();
      }
      duckDb.close();
    } finally {
      // Spillway keeps catalogs open process-wide for its connections; release this one's memory first.
      CatalogRegistry.close(dataDir);
      deleteRecursively(root);
    }
  }

  private static void deleteRecursively(Path dir) {
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete temporary TPC-H data under " + dir, e);
    }
  }
}
