package org.spillway.adapter.cli;

import org.spillway.gpu.SpillwayHome;
import org.spillway.storage.Catalog;
import org.spillway.tpch.ConsoleProgressBar;
import org.spillway.tpch.TpchSchema;
import org.spillway.tpch.TpchGenerator;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Options that choose the data directory, and the TPC-H data generated there on first use. */
public final class DataDirOptions {
  /** Where the default data lives unless --data-dir or SPILLWAY_DATA_DIR says otherwise. */
  public static Path defaultDataDir() {
    String env = System.getenv("SPILLWAY_DATA_DIR");
    return env != null && !env.isBlank() ? Path.of(env)
        : homeDataDir();
  }

  private static Path homeDataDir() {
    return SpillwayHome.directory().resolve("tpch-sf1");
  }

  @Option(names = {"-d", "--data-dir"}, paramLabel = "DIR",
      description = "Spillway data directory (default: $SPILLWAY_DATA_DIR or ~/.spillway/tpch-sf1). "
          + "The default directory is filled with TPC-H data on first use.")
  Path dataDir;

  @Option(names = "--generate",
      description = "Generate TPC-H (at --sf) into --data-dir if it is missing or empty, or its generation was"
          + " interrupted.")
  boolean generate;

  @Option(names = "--sf", defaultValue = "1", paramLabel = "SF",
      description = "TPC-H scale factor generated on first use (default: ${DEFAULT-VALUE}).")
  double scaleFactor;

  /**
   * The data directory, with TPC-H generated into it first if it holds no tables, or a generation into it was
   * killed, and it is the default one (or --generate asks for it): a mistyped --data-dir must not silently
   * start a long generation. The directory under Spillway's home is its own, so it is also regenerated when
   * any TPC-H table is missing (a first-use generation killed before the marker existed left such a state).
   */
  Path ensureData(PrintStream progress) throws IOException {
    boolean isDefault = dataDir == null;
    Path dir = isDefault ? defaultDataDir() : dataDir;
    boolean interrupted = Files.isDirectory(dir) && TpchGenerator.interrupted(dir);
    List<String> tables = Files.isDirectory(dir) ? tableNames(dir) : List.of();
    boolean incomplete = dir.equals(homeDataDir()) && !tables.containsAll(TpchSchema.TABLE_NAMES);
    if (!tables.isEmpty() && !interrupted && !incomplete) {
      return dir;
    }
    if (!isDefault && !generate) {
      throw new IllegalArgumentException(interrupted || incomplete
          ? "the TPC-H generation into " + dir + " was interrupted; run: spillway generate --force --sf "
              + scaleFactor + " --dir " + dir + " (or add --generate)"
          : "data directory " + dir + " does not exist or holds no tables; add --generate to fill it with TPC-H"
              + " data, or run: spillway generate --sf 1 --dir " + dir);
    }
    progress.printf(tables.isEmpty() && !interrupted
        ? "Spillway: no data in %s yet; generating TPC-H at scale factor %s (first use)%n"
        : "Spillway: the TPC-H data in %s is incomplete (an earlier generation was interrupted); generating it"
            + " again at scale factor %s%n", dir, scaleFactor);
    TpchGenerator.regenerate(dir, scaleFactor, Runtime.getRuntime().availableProcessors(),
        new ConsoleProgressBar(progress));
    return dir;
  }

  /** The tables of a directory; opening it also deletes the scratch that killed writers left. */
  private static List<String> tableNames(Path dir) {
    try (Catalog catalog = Catalog.open(dir)) {
      return catalog.tableNames();
    }
  }
}
