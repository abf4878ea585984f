package org.spillway.adapter.cli;

import org.spillway.tpch.ConsoleProgressBar;
import org.spillway.tpch.TpchGenerator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.concurrent.Callable;

/** Generates the eight TPC-H tables into a data directory. */
@Command(name = "generate", mixinStandardHelpOptions = true,
    description = "Generate TPC-H data (all 8 tables) as Arrow IPC into a data directory.")
public final class GenerateCommand implements Callable<Integer> {
  @Option(names = "--sf", required = true, paramLabel = "SF", description = "Scale factor, e.g. 0.01, 1, 10.")
  double scaleFactor;

  @Option(names = "--dir", required = true, paramLabel = "DIR", description = "Target data directory.")
  Path dir;

  @Option(names = "--force",
      description = "Replace the TPC-H tables DIR already holds (e.g. those of an interrupted generation).")
  boolean force;

  @Option(names = "--threads", paramLabel = "N", description = "Generator threads (default: all cores).")
  Integer threads;

  @Override public Integer call() {
    if (!(scaleFactor > 0)) {
      throw new IllegalArgumentException("--sf must be positive, not " + scaleFactor);
    }
    int n = threads != null ? threads : Runtime.getRuntime().availableProcessors();
    long start = System.nanoTime();
    if (force) {
      TpchGenerator.regenerate(dir, scaleFactor, n, new ConsoleProgressBar(System.err));
    } else {
      TpchGenerator.generate(dir, scaleFactor, n, new ConsoleProgressBar(System.err));
    }
    System.err.printf("Generated TPC-H SF %s into %s in %.1f s%n", scaleFactor, dir,
        (System.nanoTime() - start) / 1e9);
    return 0;
  }
}
