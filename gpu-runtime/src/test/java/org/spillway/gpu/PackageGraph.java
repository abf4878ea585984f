package org.spillway.gpu;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The package dependency graph of a source tree, read from the Java files themselves (imports and fully
 * qualified names, comments stripped), so layering rules can be tested without a bytecode library.
 */
final class PackageGraph {
  private static final Pattern PACKAGE = Pattern.compile("^package\\s+([\\w.]+)\\s*;", Pattern.MULTILINE);

  /** Package -> package it depends on -> the files (relative to the root) that make the dependency. */
  private final Map<String, Map<String, Set<String>>> edges = new TreeMap<>();
  /** File (relative to the root) -> the types below the prefix it references, qualified. */
  private final Map<String, Set<String>> types = new TreeMap<>();

  private PackageGraph() {}

  /**
   * Reads every .java file under {@code sourceRoot}; only references to packages below {@code prefix}
   * count (a reference is a dotted lower-case name starting with the prefix and ending at a type name, or at
   * the {@code *} of a wildcard import).
   */
  static PackageGraph read(Path sourceRoot, String prefix) {
    Pattern reference = Pattern.compile("(?<![\\w.])(" + Pattern.quote(prefix)
        + "(?:\\.[a-z_]\\w*)*)\\.([A-Z]\\w*|\\*)");
    PackageGraph graph = new PackageGraph();
    try (Stream<Path> files = Files.walk(sourceRoot)) {
      for (Path file : (Iterable<Path>) files.filter(p -> p.toString().endsWith(".java"))::iterator) {
        String code = codeOnly(Files.readString(file));
        Matcher pkg = PACKAGE.matcher(code);
        if (!pkg.find()) {
          throw new IllegalArgumentException(file + " has no package declaration");
        }
        String from = pkg.group(1);
        String name = sourceRoot.relativize(file).toString();
        Map<String, Set<String>> out = graph.edges.computeIfAbsent(from, k -> new TreeMap<>());
        Set<String> referenced = graph.types.computeIfAbsent(name, k -> new TreeSet<>());
        Matcher m = reference.matcher(code);
        while (m.find()) {
          String to = m.group(1);
          referenced.add(to + "." + m.group(2));
          if (!to.equals(from)) {
            out.computeIfAbsent(to, k -> new TreeSet<>()).add(name);
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read sources under " + sourceRoot, e);
    }
    return graph;
  }

  /**
   * The source with comments, string and character literals (text blocks included) blanked out, so a
   * package named only in prose or in a string makes no dependency. A scan, not a regex: regexes over
   * long literals overflow the stack.
   */
  static String codeOnly(String source) {
    StringBuilder out = new StringBuilder(source.length());
    int i = 0;
    int n = source.length();
    while (i < n) {
      char c = source.charAt(i);
      if (source.startsWith("//", i)) {
        i = orEnd(source.indexOf('\n', i), n);
      } else if (source.startsWith("/*", i)) {
        i = orEnd(source.indexOf("*/", i + 2), n) + 2;
      } else if (source.startsWith("\"\"\"", i)) {
        i = orEnd(source.indexOf("\"\"\"", i + 3), n) + 3;
      } else if (c == '"' || c == '\'') {
        i++;
        while (i < n && source.charAt(i) != c) {
          i += source.charAt(i) == '\\' ? 2 : 1;
        }
        i++;
      } else {
        out.append(c);
        i++;
        continue;
      }
      out.append(' ');
    }
    return out.toString();
  }

  private static int orEnd(int index, int n) {
    return index < 0 ? n : index;
  }

  /**
   * Per source file (relative to the root): the qualified types below the prefix it references, by import or by
   * qualified name ({@code p.a.*} for a wildcard import of {@code p.a}); a nested type counts as its outer type.
   */
  Map<String, Set<String>> typesByFile() {
    return types;
  }

  /** The packages that have source files. */
  Set<String> packages() {
    return edges.keySet();
  }

  /** The packages {@code from} depends on. */
  Set<String> dependencies(String from) {
    return edges.getOrDefault(from, Map.of()).keySet();
  }

  /** The files of {@code from} that reference {@code to}. */
  Set<String> files(String from, String to) {
    return edges.getOrDefault(from, Map.of()).getOrDefault(to, Set.of());
  }

  /**
   * The cycles: strongly connected components of more than one package (Tarjan's algorithm), each
   * sorted, so a failure names every package of the tangle at once.
   */
  List<Set<String>> cycles() {
    Map<String, Integer> index = new HashMap<>();
    Map<String, Integer> low = new HashMap<>();
    Deque<String> stack = new ArrayDeque<>();
    List<Set<String>> components = new ArrayList<>();
    for (String p : edges.keySet()) {
      if (!index.containsKey(p)) {
        connect(p, index, low, stack, components);
      }
    }
    return components;
  }

  private void connect(String p, Map<String, Integer> index, Map<String, Integer> low, Deque<String> stack,
      List<Set<String>> components) {
    index.put(p, index.size());
    low.put(p, index.get(p));
    stack.push(p);
    for (String q : dependencies(p)) {
      if (!index.containsKey(q)) {
        connect(q, index, low, stack, components);
        low.put(p, Math.min(low.get(p), low.get(q)));
      } else if (stack.contains(q)) {
        low.put(p, Math.min(low.get(p), index.get(q)));
      }
    }
    if (low.get(p).equals(index.get(p))) {
      Set<String> component = new TreeSet<>();
      String q;
      do {
        q = stack.pop();
        component.add(q);
      } while (!q.equals(p));
      if (component.size() > 1) {
        components.add(component);
      }
    }
  }

  /** One line per dependency inside {@code component}, with the files that make it, for failure messages. */
  String describe(Set<String> component) {
    StringBuilder sb = new StringBuilder();
    for (String from : component) {
      for (String to : dependencies(from)) {
        if (component.contains(to)) {
          sb.append("\n  ").append(from).append(" -> ").append(to).append(" in ").append(files(from, to));
        }
      }
    }
    return sb.toString();
  }
}
