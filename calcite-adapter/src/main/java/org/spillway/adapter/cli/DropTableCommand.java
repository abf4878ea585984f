package org.spillway.adapter.cli;

import org.spillway.storage.Catalog;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * Drops tables from a data directory, broken ones included (SQL's DROP TABLE does the same for a connection's
 * catalog). Servers and shells that have the directory open stop seeing the tables on their next statement.
 */
@Command(name = "drop-table", mixinStandardHelpOptions = true,
    description = "Drop tables (their files too) from a data directory, e.g. a broken table or a partial TPC-H set.")
public final class DropTableCommand implements Callable<Integer> {
  @Option(names = "--dir", required = true, paramLabel = "DIR", description = "Data directory.")
  Path dir;

  @Parameters(arity = "1..*", paramLabel = "TABLE", description = "Tables to drop.")
  List<String> tables;

  @Override public Integer call() {
    try (Catalog catalog = Catalog.open(dir)) {
      for (String table : tables) {
        catalog.dropTable(table);
        System.err.println("Dropped table " + table + " from " + catalog.directory());
      }
    }
    return 0;
  }
}
