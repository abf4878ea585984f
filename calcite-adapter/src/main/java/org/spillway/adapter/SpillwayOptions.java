package org.spillway.adapter;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;
import org.spillway.gpu.pipeline.gpu.FilterVariant;
import org.spillway.gpu.plan.GpuColumnCaches;
import org.spillway.gpu.transfer.TransferMethod;

/**
 * The execution settings of one connection (or model schema): the device, and optionally a forced transfer
 * method and filter variant (null: the cost model chooses), the bytes of GPU memory the process-wide
 * column cache may hold for it (0: the connection does not use the cache), and the equi-join algorithm
 * (AUTO: the join cost model chooses).
 */
public record SpillwayOptions(SpillwayDevice device, TransferMethod transfer, FilterVariant filterVariant,
    long gpuCacheBytes, SpillwayJoinAlgorithm joinAlgorithm) {
  /** Everything chosen by the planner, no cache. */
  public static final SpillwayOptions DEFAULT = new SpillwayOptions(SpillwayDevice.AUTO, null, null, 0,
      SpillwayJoinAlgorithm.AUTO);

  public SpillwayOptions {
    if (device == null) {
      throw new IllegalArgumentException("device must not be null");
    }
    if (joinAlgorithm == null) {
      throw new IllegalArgumentException("joinAlgorithm must not be null (AUTO lets the cost model choose)");
    }
    if (gpuCacheBytes < 0) {
      throw new IllegalArgumentException("gpuCache must not be negative, got " + gpuCacheBytes);
    }
  }

  /** Default options on {@code device}. */
  public static SpillwayOptions of(SpillwayDevice device) {
    return new SpillwayOptions(device, null, null, 0, SpillwayJoinAlgorithm.AUTO);
  }

  /** These options with another equi-join algorithm. */
  public SpillwayOptions withJoinAlgorithm(SpillwayJoinAlgorithm algorithm) {
    return new SpillwayOptions(device, transfer, filterVariant, gpuCacheBytes, algorithm);
  }

  /**
   * Parses the property values (null: the default); a bad value fails with a message that names the property
   * and the accepted values, and no cause (command lines print the root cause's message).
   */
  public static SpillwayOptions parse(String device, String transfer, String filterVariant, String gpuCache) {
    return parse(device, transfer, filterVariant, gpuCache, null);
  }

  /** As {@link #parse(String, String, String, String)}, with the {@code joinAlgorithm} property too. */
  public static SpillwayOptions parse(String device, String transfer, String filterVariant, String gpuCache,
      String joinAlgorithm) {
    return new SpillwayOptions(device == null ? SpillwayDevice.AUTO : parseDevice(device), parseTransfer(transfer),
        parseFilterVariant(filterVariant), parseGpuCache(gpuCache),
        joinAlgorithm == null ? SpillwayJoinAlgorithm.AUTO : SpillwayJoinAlgorithm.parse(joinAlgorithm));
  }

  private static SpillwayDevice parseDevice(String value) {
    try {
      return SpillwayDevice.parse(value);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("Property 'device': " + e.getMessage());
    }
  }

  /** "auto" (or null) is null; otherwise a transfer method label such as "zero-copy" or "pinned copy". */
  static TransferMethod parseTransfer(String value) {
    if (value == null || isAuto(value)) {
      return null;
    }
    try {
      return TransferMethod.parse(value.trim());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("Property 'transfer' must be auto or one of "
          + Arrays.stream(TransferMethod.values()).map(TransferMethod::label).collect(Collectors.joining(", "))
          + ", not '" + value + "'");
    }
  }

  private static FilterVariant parseFilterVariant(String value) {
    if (value == null || isAuto(value)) {
      return null;
    }
    try {
      return FilterVariant.parse(value);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("Property 'filterVariant' must be auto, branching or predication, not '"
          + value + "'");
    }
  }

  /** "off", "0" (or null) is 0; otherwise a byte count such as 40g, 512m or 1048576. */
  static long parseGpuCache(String value) {
    if (value == null || value.isBlank() || value.trim().equalsIgnoreCase("off") || value.trim().equals("0")) {
      return 0;
    }
    try {
      return GpuColumnCaches.parseBytes(value);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("Property 'gpuCache' must be off or a byte count such as 40g, 512m or "
          + "1048576, not '" + value + "'");
    }
  }

  private static boolean isAuto(String value) {
    return value.isBlank() || value.trim().toLowerCase(Locale.ROOT).equals("auto");
  }
}
