package org.spillway.adapter.cli;

import org.spillway.adapter.SpillwayOptions;
import org.spillway.adapter.jdbc.SpillwayDriver;
import org.spillway.adapter.server.ServerCommand;
import org.spillway.adapter.server.UsersCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/** Command-line entry point: an SQL shell on the default data, one-shot queries and the admin commands. */
@Command(name = "spillway", mixinStandardHelpOptions = true, version = "Spillway 0.1.0",
    description = {"SQL over Arrow data in CPU memory, executed by GPU operators.",
        "Without -e or -f it opens an interactive SQL shell (sqlline)."},
    subcommands = {GenerateCommand.class, ImportCommand.class, DropTableCommand.class, CalibrateCommand.class, ServerCommand.class,
        UsersCommand.class})
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

  @Option(names = "--transfer", paramLabel = "METHOD",
      description = "Host-to-GPU transfer method: auto (the cost model chooses), pinned-copy, zero-copy, staged-copy,"
          + " um-prefetch, ... (the connection property transfer).")
  String transfer;

  @Option(names = "--filter-variant", paramLabel = "VARIANT",
      description = "GPU filter variant: auto, branching or predication (the connection property filterVariant).")
  String filterVariant;

  @Option(names = "--gpu-cache", paramLabel = "SIZE",
      description = "Keep hot columns in GPU memory up to SIZE, e.g. 40g (the connection property gpuCache;"
          + " default off).")
  String gpuCache;

  @Option(names = "--join-algorithm", paramLabel = "ALGORITHM",
      description = "Equi-join algorithm: auto, cpu-nopa, cpu-radix, nopa, triton, inlj or gpu-inlj (the connection property"
          + " joinAlgorithm).")
  String joinAlgorithm;

  @Option(names = "--index-join-window", paramLabel = "SIZE",
      description = "Probe keys per window of the windowed index join, e.g. 4m (the connection property"
          + " indexJoinWindow; default: sized by the index, 1/64 of its keys' bytes, 32m to 512m).")
  String indexJoinWindow;

  @Override public Integer call() throws Exception {
    Path dir = data.ensureData(System.err);
    String url = SpillwayDriver.CONNECT_STRING_PREFIX + "dataDir=" + dir + connectionProperties();
    if (execute != null || file != null) {
      String script = execute != null ? execute : Files.readString(file);
      return new SqlRunner(url, new ResultPrinter(System.out, format), System.err).run(script);
    }
    return runShell(url);
  }

  /** The options as connection properties (";key=value..."), checked here so that a typo fails before any work. */
  String connectionProperties() {
    SpillwayOptions options = SpillwayOptions.parse(device, transfer, filterVariant, gpuCache, joinAlgorithm,
        indexJoinWindow);
    StringBuilder props = new StringBuilder();
    if (device != null) {
      props.append(";device=").append(options.device());
    }
    if (transfer != null) {
      props.append(";transfer=").append(options.transfer() == null ? "auto"
          : options.transfer().name().toLowerCase(Locale.ROOT).replace('_', '-'));
    }
    if (filterVariant != null) {
      props.append(";filterVariant=")
          .append(options.filterVariant() == null ? "auto" : options.filterVariant().label());
    }
    if (gpuCache != null) {
      props.append(";gpuCache=").append(options.gpuCacheBytes() == 0 ? "off" : gpuCache.trim());
    }
    if (joinAlgorithm != null) {
      props.append(";joinAlgorithm=").append(options.joinAlgorithm());
    }
    if (indexJoinWindow != null) {
      props.append(";indexJoinWindow=").append(options.indexJoinWindowBytes());
    }
    return props.toString();
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
