package org.spillway.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The engine's packages form layers (docs/architecture.md): no package cycle in gpu-runtime, the device layer
 * (CUDA driver wrappers and memory) depends on no other engine package, and every package uses only the layers
 * below it. The adapter (calcite-adapter) uses only the engine's API for it: the runtime plan and the types plans
 * are made of.
 */
class PackageLayoutTest {
  /** Maven runs tests in the module's directory. */
  private static final Path MAIN_SOURCES = Path.of("src/main/java");
  private static final Path ADAPTER_SOURCES = Path.of("../calcite-adapter/src/main/java");
  private static final String ENGINE = "org.spillway.gpu";

  /**
   * What the adapter may use of the engine (docs/architecture.md, "What the adapter may import"), relative to
   * {@link #ENGINE}: every type of these packages...
   */
  static final Set<String> ADAPTER_API_PACKAGES = Set.of("plan", "calibrate");
  /** ...and these types: the values plans are made of, the choices the planner makes, the device's facade. */
  static final Set<String> ADAPTER_API_TYPES = Set.of("vector.ExprType", "expr.Expr", "expr.AggCall",
      "expr.SqlLikePatterns", "pipeline.PipelineStage", "pipeline.sort.SortKey", "pipeline.gpu.FilterVariant",
      "transfer.TransferMethod", "device.HostMemoryKind", "device.GpuRuntime", "device.SpillwayResourceException");
  /**
   * Adapter files outside its planning and translation code, with the engine types each may use beyond the API:
   * the process's setup of Arrow memory, the command line's data directory, the server's byte sizes and its
   * benchmarks' reports, and the index join benchmark's report that the cost model's predictions are added to.
   */
  static final Map<String, Set<String>> ADAPTER_EXCEPTIONS = Map.of(
      "org/spillway/adapter/HostMemorySetup.java", Set.of("device.PinnedAllocationManager"),
      "org/spillway/adapter/cli/DataDirOptions.java", Set.of("SpillwayHome"),
      "org/spillway/adapter/server/ServerCommand.java", Set.of("device.DeviceAllocator"),
      "org/spillway/adapter/server/ServerLoadBenchmark.java", Set.of("bench.BenchReport"),
      "org/spillway/adapter/SpillwayIndexJoinPredictions.java", Set.of("bench.BenchReport"),
      "org/spillway/adapter/server/FlightSqlBenchmark.java", Set.of("bench.BenchReport"));

  /**
   * The engine's packages, lowest layer first (relative to {@link #ENGINE}; "" is the engine's root package): a
   * package may use only packages listed before it. A new package gets its place here.
   */
  private static final List<String> LAYERS = List.of("", "device", "transfer", "vector", "expr",
      "pipeline.scheduler", "join", "join.keys", "join.nopa", "join.radix", "join.triton", "join.hash", "pipeline",
      "aggregate", "pipeline.cpu", "pipeline.gpu", "pipeline.sort", "index", "join.inlj", "plan", "ops", "bench",
      "calibrate");

  @Test
  void engineHasNoPackageCycle() {
    PackageGraph graph = PackageGraph.read(MAIN_SOURCES, ENGINE);
    List<Set<String>> cycles = graph.cycles();
    assertTrue(cycles.isEmpty(), () -> "package cycles in gpu-runtime:" + cycles.stream()
        .map(graph::describe).collect(Collectors.joining()));
  }

  @Test
  void deviceLayerDependsOnNoOtherEnginePackage() {
    PackageGraph graph = PackageGraph.read(MAIN_SOURCES, ENGINE);
    Set<String> deps = graph.dependencies(ENGINE + ".device");
    assertTrue(deps.isEmpty(), () -> "org.spillway.gpu.device must sit below every other engine package, but uses "
        + deps.stream().map(d -> d + " " + graph.files(ENGINE + ".device", d)).toList());
  }

  @Test
  void everyPackageUsesOnlyTheLayersBelowIt() {
    PackageGraph graph = PackageGraph.read(MAIN_SOURCES, ENGINE);
    List<String> layers = LAYERS.stream().map(p -> p.isEmpty() ? ENGINE : ENGINE + "." + p).toList();
    for (String from : graph.packages()) {
      if (!from.startsWith(ENGINE + ".") && !from.equals(ENGINE)) {
        continue;  // org.spillway.runtime and the like sit beside the engine
      }
      assertTrue(layers.contains(from), () -> from + " has no place in PackageLayoutTest.LAYERS");
      for (String to : graph.dependencies(from)) {
        assertTrue(layers.indexOf(to) >= 0 && layers.indexOf(to) < layers.indexOf(from),
            () -> from + " uses " + to + ", which is not a layer below it, in " + graph.files(from, to));
      }
    }
  }

  @Test
  void adapterUsesOnlyTheEnginesPlanApi() {
    assertTrue(Files.isDirectory(ADAPTER_SOURCES), () -> "the adapter's sources are not at "
        + ADAPTER_SOURCES.toAbsolutePath().normalize());
    PackageGraph adapter = PackageGraph.read(ADAPTER_SOURCES, ENGINE);
    List<String> violations = adapterViolations(adapter, ADAPTER_EXCEPTIONS);
    assertTrue(violations.isEmpty(), () -> "the adapter uses engine internals beyond the plan API "
        + "(docs/architecture.md, \"What the adapter may import\"):\n  " + String.join("\n  ", violations));
    ADAPTER_EXCEPTIONS.forEach((file, types) -> {
      for (String type : types) {
        assertTrue(adapter.typesByFile().getOrDefault(file, Set.of()).contains(qualified(type)),
            () -> file + " no longer uses " + type + ": drop the exception from PackageLayoutTest");
      }
    });
  }

  @Test
  void adapterRuleCatchesImportsWildcardsAndQualifiedNames(@TempDir Path root) throws IOException {
    write(root, "a/Uses.java", "package a;\nimport org.spillway.gpu.plan.PlanNode;\n"
        + "import org.spillway.gpu.vector.ExprType;\nimport org.spillway.gpu.join.hash.JoinProbe;\n"
        + "import static org.spillway.gpu.calibrate.MachineProfiles.current;\n"
        + "class Uses { org.spillway.gpu.pipeline.cpu.ColumnarPipeline p; }\n");
    write(root, "a/Wildcard.java", "package a;\nimport org.spillway.gpu.pipeline.gpu.*;\nclass Wildcard {}\n");
    write(root, "a/Setup.java", "package a;\nimport org.spillway.gpu.device.PinnedAllocationManager;\n"
        + "import org.spillway.gpu.device.CudaDevice;\nclass Setup {}\n");
    write(root, "a/Comment.java", "package a;\n// org.spillway.gpu.join.hash.JoinProbe is only named\nclass Comment {}\n");
    List<String> violations = adapterViolations(PackageGraph.read(root, ENGINE),
        Map.of("a/Setup.java", Set.of("device.PinnedAllocationManager")));
    assertEquals(List.of("a/Setup.java uses org.spillway.gpu.device.CudaDevice",
        "a/Uses.java uses org.spillway.gpu.join.hash.JoinProbe",
        "a/Uses.java uses org.spillway.gpu.pipeline.cpu.ColumnarPipeline",
        "a/Wildcard.java uses org.spillway.gpu.pipeline.gpu.*"), violations);
  }

  /** "file uses type" for each engine type a file uses outside the API and its own exceptions, sorted. */
  private static List<String> adapterViolations(PackageGraph adapter, Map<String, Set<String>> exceptions) {
    List<String> out = new ArrayList<>();
    adapter.typesByFile().forEach((file, types) -> {
      for (String type : types) {
        String relative = type.substring(ENGINE.length() + 1);
        String pkg = relative.contains(".") ? relative.substring(0, relative.lastIndexOf('.')) : "";
        boolean allowed = ADAPTER_API_PACKAGES.contains(pkg) || ADAPTER_API_TYPES.contains(relative)
            || exceptions.getOrDefault(file, Set.of()).contains(relative);
        if (!allowed) {
          out.add(file + " uses " + type);
        }
      }
    });
    out.sort(null);
    return out;
  }

  private static String qualified(String relative) {
    return ENGINE + "." + relative;
  }

  @Test
  void findsCycleThroughImportsAndQualifiedNamesButNotComments(@TempDir Path root) throws IOException {
    write(root, "a/A.java", "package p.a;\nimport p.b.B;\nclass A {}\n");
    write(root, "b/B.java", "package p.b;\nclass B { p.c.C c; }\n");
    write(root, "c/C.java", "package p.c;\nimport static p.a.A.f;\nclass C {}\n");
    write(root, "d/D.java", "package p.d;\n// p.a.A is only mentioned\n/* p.b.B */ class D { char q = '\"';\n"
        + "String s = \"p.a.A \\\" p.b.B\"; String t = \"\"\"\n p.c.C \"\n\"\"\"; }\n");
    PackageGraph graph = PackageGraph.read(root, "p");
    assertEquals(List.of(new TreeSet<>(Set.of("p.a", "p.b", "p.c"))), graph.cycles());
    assertEquals(Set.of(), graph.dependencies("p.d"));
    assertTrue(graph.describe(Set.of("p.a", "p.b", "p.c")).contains("p.b -> p.c in [b/B.java]"));
  }

  @Test
  void layeredPackagesHaveNoCycle(@TempDir Path root) throws IOException {
    write(root, "a/A.java", "package p.a;\nimport p.b.B;\nimport q.X;\nclass A {}\n");
    write(root, "b/B.java", "package p.b;\nimport p.c.C;\nclass B {}\n");
    write(root, "c/C.java", "package p.c;\nclass C { q.p.a.A outside; }\n");
    PackageGraph graph = PackageGraph.read(root, "p");
    assertEquals(List.of(), graph.cycles());
    assertEquals(Set.of("p.b"), graph.dependencies("p.a"));
  }

  private static void write(Path root, String file, String code) throws IOException {
    Path path = root.resolve(file);
    Files.createDirectories(path.getParent());
    Files.writeString(path, code);
  }
}
