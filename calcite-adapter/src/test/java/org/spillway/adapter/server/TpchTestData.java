package org.spillway.adapter.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Comparator;
import java.util.stream.Stream;
import org.spillway.adapter.jdbc.SpillwayDriver;
import org.spillway.tpch.ProgressListener;
import org.spillway.tpch.TpchGenerator;

/** TPC-H at SF 0.01, generated once per test JVM and shared by the server tests. */
final class TpchTestData {
  static final double SCALE_FACTOR = 0.01;

  private static Path dataDir;

  private TpchTestData() {}

  /** The data directory, generating it on first use; it is deleted when the JVM exits. */
  static synchronized Path dataDir() {
    if (dataDir == null) {
      try {
        final Path dir = Files.createTempDirectory("spillway-server-tpch");
        TpchGenerator.generate(dir, SCALE_FACTOR, 2, ProgressListener.NONE);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteRecursively(dir)));
        dataDir = dir;
      } catch (IOException e) {
        throw new UncheckedIOException("cannot generate TPC-H test data", e);
      }
    }
    return dataDir;
  }

  /** An embedded connection to the same catalog the servers under test serve. */
  static Connection embedded() throws SQLException {
    return DriverManager.getConnection(SpillwayDriver.CONNECT_STRING_PREFIX + "dataDir=" + dataDir());
  }

  private static void deleteRecursively(Path dir) {
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    } catch (IOException e) {
      // Best effort at exit: a leftover temp directory is not worth failing the run for.
    }
  }
}
