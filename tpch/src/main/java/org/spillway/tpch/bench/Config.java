package org.spillway.tpch.bench;

/**
 * One way of running a query: an engine ("gpu", "cpu", "auto": Spillway's cost model chooses, "duckdb") and,
 * for the GPU, the forced transfer method and filter variant and whether the GPU column cache is on.
 */
record Config(String engine, String transfer, String variant, boolean cached) {
  static final Config DUCKDB = new Config("duckdb", "", "", false);
  static final Config CPU = new Config("cpu", "", "", false);

  /** The Spillway connection properties of this configuration. */
  String properties(String cacheSize) {
    String cache = ";gpuCache=" + (cached ? cacheSize : "off");
    return switch (engine) {
      case "cpu" -> "device=cpu";
      case "auto" -> "device=auto" + cache;
      case "gpu" -> "device=gpu;transfer=" + transfer.replace(' ', '-') + ";filterVariant=" + variant + cache;
      default -> throw new IllegalStateException(engine + " is not a Spillway configuration");
    };
  }

  /** E.g. "gpu zero-copy branching cached". */
  String label() {
    return String.join(" ", engine, transfer, variant, cached ? "cached" : "").replaceAll(" +", " ").trim();
  }
}
