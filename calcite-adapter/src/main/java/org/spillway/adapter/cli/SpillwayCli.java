package org.spillway.adapter.cli;

import org.spillway.adapter.SpillwayDevice;
import org.spillway.adapter.jdbc.SpillwayDriver;
import org.spillway.adapter.server.ServerCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/** Command-line entry point: an SQL shell on the default data, one-shot queries and the admin commands. */
@Command(name = "spillway", mixinStandardHelpOptions = true, version = "Spillway 0.1.0",
    description = {"SQL over Arrow data in CPU memory, executed by GPU operators.",
        "Without -e or -f it opens an interactive SQL shell (sqlline)."},
    subcommands = {GenerateCommand.class, CalibrateCommand.class, ServerCommand.class})
public final class SpillwayCli implements Callable<Integer> {
  @Mixin DataDirOptions data;

  @Option(names = {"-e", "--execute"}, paramLabel = "SQL", description = "Run these statements and exit.")
  String execute;

  @Option(names = {"-f", "--file"}, paramLabel = "FILE", description = "Run the statements of a file and exit.")
  Path file;

  @Option(names = "--format", defaultValue = "table",
      description = "Result format of -e and -f: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
  ResultPrinter.Format format;

  @Option(names = "--device", paramLabel = "DEVICE",
      description = "Device of the Spillway operators: cpu, gpu or auto (the connection property device).")
  String device;

  @Override public Integer call() throws Exception {
    Path dir = data.ensureData(System.err);
    String url = SpillwayDriver.CONNECT_STRING_PREFIX + "dataDir=" + dir
        + (device == null ? "" : ";device=" + SpillwayDevice.parse(device));
    if (execute != null || file != null) {
      String script = execute != null ? execute : Files.readString(file);
      return new SqlRunner(url, new ResultPrinter(System.out, format), System.err).run(script);
    }
    return runShell(url);
  }

  private static int runShell(String url) throws Exception {
    List<String> args = new ArrayList<>(List.of("-d", SpillwayDriver.class.getName(), "-u", url,
        "-n", "spillway", "-p", "spillway", "--isolation=TRANSACTION_NONE"));
    if (System.console() == null) {
      args.add("--maxWidth=160");  // sqlline cannot measure a terminal that is not there
    }
    sqlline.SqlLine.Status status = sqlline.SqlLine.start(args.toArray(new String[0]), null, true);
    return status == sqlline.SqlLine.Status.OK ? 0 : 1;
  }

  /** Runs the command line and returns the process exit code. */
  public static int run(String[] args, PrintStream err) {
    CommandLine cli = new CommandLine(new SpillwayCli());
    cli.setErr(new java.io.PrintWriter(err, true));
    cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
      commandLine.getErr().println("spillway: " + Messages.describe(e));
      return 1;
    });
    return cli.execute(args);
  }

  public static void main(String[] args) {
    System.exit(run(args, System.err));
  }
}
