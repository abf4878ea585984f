package org.spillway.adapter;

import java.util.Arrays;
import java.util.Locale;

/**
 * Which device runs the Spillway operators: forced to the CPU or GPU backend, or chosen by the planner. A
 * pipeline the GPU cannot run stays on the CPU backend, also when the GPU is forced (see SpillwayBackend).
 */
public enum SpillwayDevice {
  CPU, GPU, AUTO;

  /** The device named by a connection property value (case-insensitive); a bad value says what is allowed. */
  public static SpillwayDevice parse(String value) {
    return Arrays.stream(values()).filter(d -> d.name().equalsIgnoreCase(value.trim())).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("device '" + value + "' is not one of cpu, gpu, auto"));
  }

  @Override public String toString() {
    return name().toLowerCase(Locale.ROOT);
  }
}
