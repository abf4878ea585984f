package org.spillway.tpch.bench;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Command-line options of the benchmark drivers: {@code --name value} pairs; unknown names are errors. */
final class BenchArgs {
  private final String program;
  private final Map<String, String> values = new LinkedHashMap<>();

  private BenchArgs(String program) {
    this.program = program;
  }

  /** Reads {@code --name value} pairs (a name without a value, or followed by another name, reads "true"). */
  static BenchArgs parse(String[] argv, String program) {
    BenchArgs args = new BenchArgs(program);
    for (int i = 0; i < argv.length; i++) {
      if (!argv[i].startsWith("--")) {
        throw new IllegalArgumentException(program + ": expected an option (--name value), got '" + argv[i] + "'");
      }
      boolean hasValue = i + 1 < argv.length && !argv[i + 1].startsWith("--");
      args.values.put(argv[i], hasValue ? argv[++i] : "true");
    }
    return args;
  }

  String text(String name, String fallback) {
    String v = values.remove(name);
    return v == null ? fallback : v;
  }

  double number(String name, double fallback) {
    String v = values.remove(name);
    try {
      return v == null ? fallback : Double.parseDouble(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(program + ": " + name + " takes a number, not '" + v + "'");
    }
  }

  Path path(String name, Path fallback) {
    String v = values.remove(name);
    return v == null ? fallback : Path.of(v);
  }

  boolean flag(String name) {
    return Boolean.parseBoolean(text(name, "false"));
  }

  /** A comma-separated list, items trimmed. */
  List<String> list(String name, String fallback) {
    return Arrays.stream(text(name, fallback).split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
  }

  /** Fails on options no one asked for (typos must not pass silently). */
  void finish() {
    if (!values.isEmpty()) {
      throw new IllegalArgumentException(program + ": unknown option(s) " + values.keySet());
    }
  }
}
