package org.spillway.gpu.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Runs without a GPU: the kernel sources mirror the Java packages (src/main/cuda/join/nopa/x.cu is loaded by
 * org.spillway.gpu.join.nopa), and GpuRuntime's list of modules names exactly the .cu files nvcc builds.
 */
class KernelModulesTest {
  /** Maven runs tests in the module's directory. */
  private static final Path CUDA = Path.of("src/main/cuda");
  private static final Path ENGINE = Path.of("src/main/java/org/spillway/gpu");

  private static Set<String> cudaSources() throws IOException {
    try (Stream<Path> files = Files.walk(CUDA)) {
      return files.filter(p -> p.toString().endsWith(".cu"))
          .map(p -> CUDA.relativize(p).toString().replace('\\', '/').replaceFirst("\\.cu$", ""))
          .collect(Collectors.toCollection(TreeSet::new));
    }
  }

  @Test
  void runtimeListsEveryKernelSource() throws IOException {
    assertEquals(cudaSources(), new TreeSet<>(Arrays.asList(GpuRuntime.KERNEL_MODULES)));
  }

  @Test
  void everyModuleIsLoadedFromTheJavaPackageOfItsFolder() throws IOException {
    for (String module : GpuRuntime.KERNEL_MODULES) {
      int slash = module.lastIndexOf('/');
      assertTrue(slash > 0, module + " sits at the top of src/main/cuda instead of its package's folder");
      Path pkg = ENGINE.resolve(module.substring(0, slash));
      assertTrue(Files.isDirectory(pkg), module + ": no Java package " + pkg);
      boolean loaded;
      try (Stream<Path> files = Files.list(pkg)) {
        loaded = files.filter(p -> p.toString().endsWith(".java")).anyMatch(p -> contains(p, "\"" + module + "\""));
      }
      assertTrue(loaded, module + " is not loaded by any class of " + pkg);
    }
  }

  @Test
  void kernelsIncludeSharedPrimitivesInsteadOfOwnCopies() throws IOException {
    try (Stream<Path> files = Files.walk(CUDA)) {
      for (Path p : files.filter(f -> f.toString().matches(".*\\.cuh?$")).toList()) {
        if (p.getFileName().toString().equals("block_primitives.cuh")) {
          continue;
        }
        String code = Files.readString(p);
        for (String own : new String[] {"T block_reduce(", "T warp_reduce(", "bool is_valid(", "block_sum128(unsigned",
            "block_exclusive_scan(T*", "block_rank(bool"}) {
          assertFalse(code.contains(own), p + " defines its own " + own + " (use block_primitives.cuh)");
        }
      }
    }
  }

  private static boolean contains(Path file, String text) {
    try {
      return Files.readString(file).contains(text);
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + file, e);
    }
  }
}
