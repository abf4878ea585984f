package org.spillway.adapter.cli;

import org.spillway.gpu.SpillwayHome;
import org.spillway.tpch.ConsoleProgressBar;
import org.spillway.tpch.TpchGenerator;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/** Options that choose the data directory, and the TPC-H data generated there on first use. */
public final class DataDirOptions {
  /** Where the default data lives unless --data-dir or SPILLWAY_DATA_DIR says otherwise. */
  public static Path defaultDataDir() {
    String env = System.getenv("SPILLWAY_DATA_DIR");
    return env != null && !env.isBlank() ? Path.of(env)
        : SpillwayHome.directory().resolve("tpch-sf1");
  }

  @Option(names = {"-d", "--data-dir"}, paramLabel = "DIR",
      description = "Spillway data directory (default: $SPILLWAY_DATA_DIR or ~/.spillway/tpch-sf1). "
          + "The default directory is filled with TPC-H data on first use.")
  Path dataDir;

  @Option(names = "--generate",
      description = "Generate TPC-H (at --sf) into --data-dir if it is missing or empty.")
  boolean generate;

  @Option(names = "--sf", defaultValue = "1", paramLabel = "SF",
      description = "TPC-H scale factor generated on first use (default: ${DEFAULT-VALUE}).")
  double scaleFactor;

  /**
   * The data directory, with TPC-H generated into it first if it is missing or empty and it is the default
   * one (or --generate asks for it): a mistyped --data-dir must not silently start a long generation.
   */
  Path ensureData(PrintStream progress) throws IOException {
    Path dir = dataDir != null ? dataDir : defaultDataDir();
    boolean missing = !Files.exists(dir) || isEmptyDirectory(dir);
    if (missing && dataDir != null && !generate) {
      throw new IllegalArgumentException("data directory " + dir + " does not exist or is empty; add"
          + " --generate to fill it with TPC-H data, or run: spillway generate --sf 1 --dir " + dir);
    }
    if (missing) {
      progress.printf("Spillway: no data in %s yet; generating TPC-H at scale factor %s (first use)%n",
          dir, scaleFactor);
      TpchGenerator.generate(dir, scaleFactor, Runtime.getRuntime().availableProcessors(),
          new ConsoleProgressBar(progress));
    }
    return dir;
  }

  private static boolean isEmptyDirectory(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return false;
    }
    try (Stream<Path> entries = Files.list(dir)) {
      return entries.findAny().isEmpty();
    }
  }
}
