package org.spillway.adapter.jdbc;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/** Connection properties that a {@code jdbc:spillway:} URL or its Properties may carry. */
public enum SpillwayProperty {
  DATA_DIR("dataDir", null, "Directory of the Spillway catalog (Arrow IPC tables)"),
  SCHEMA("schema", "spillway", "Name under which the catalog's tables appear"),
  DEVICE("device", "auto", "Device for Spillway operators: cpu, gpu or auto (the planner chooses)"),
  TRANSFER("transfer", "auto", "Host-to-GPU transfer method: auto (the cost model chooses) or a method such as "
      + "pinned copy, zero-copy, staged copy, UM prefetch"),
  FILTER_VARIANT("filterVariant", "auto", "GPU filter variant: auto (the cost model chooses), branching or "
      + "predication"),
  GPU_CACHE("gpuCache", "off", "Keep hot columns in GPU memory, up to this many bytes (e.g. 40g), in a "
      + "process-wide cache shared by the connections that set it; off: stream every run"),
  JOIN_ALGORITHM("joinAlgorithm", "auto", "Equi-join algorithm: auto (the cost model chooses), cpu-nopa, "
      + "cpu-radix, nopa or triton (GPU; the CPU serves with the reason in EXPLAIN where they cannot run), inlj "
      + "(through an index on the other side's join key, CREATE INDEX; else the reason in EXPLAIN) or gpu-inlj"),
  INDEX_JOIN_WINDOW("indexJoinWindow", "32m", "Probe keys per window of the windowed index join, in bytes of 8-byte"
      + " keys (e.g. 4m, 32m, 1g): each window is partitioned before its lookups");

  public final String camelName;
  public final String defaultValue;
  public final String description;

  SpillwayProperty(String camelName, String defaultValue, String description) {
    this.camelName = camelName;
    this.defaultValue = defaultValue;
    this.description = description;
  }

  /** The property of a key, ignoring case. */
  public static Optional<SpillwayProperty> of(String key) {
    String k = key.toLowerCase(Locale.ROOT);
    return Arrays.stream(values()).filter(p -> p.camelName.toLowerCase(Locale.ROOT).equals(k)).findFirst();
  }

  /** The known keys, for error messages. */
  public static String knownKeys() {
    return Arrays.stream(values()).map(p -> p.camelName).collect(Collectors.joining(", "));
  }
}
