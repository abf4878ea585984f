package org.spillway.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The engine's packages form layers (docs/architecture.md): no package cycle in gpu-runtime, the device layer
 * (CUDA driver wrappers and memory) depends on no other engine package, and every package uses only the layers
 * below it.
 */
class PackageLayoutTest {
  /** Maven runs tests in the module's directory. */
  private static final Path MAIN_SOURCES = Path.of("src/main/java");
  private static final String ENGINE = "org.spillway.gpu";

  /**
   * The engine's packages, lowest layer first (relative to {@link #ENGINE}; "" is the engine's root package): a
   * package may use only packages listed before it. A new package gets its place here.
   */
  private static final List<String> LAYERS = List.of("", "device", "transfer", "vector", "expr",
      "pipeline.scheduler", "join", "join.keys", "join.nopa", "join.radix", "join.triton", "join.hash", "pipeline",
      "aggregate", "pipeline.cpu", "pipeline.gpu", "pipeline.sort", "index", "plan", "ops", "bench", "calibrate");

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
