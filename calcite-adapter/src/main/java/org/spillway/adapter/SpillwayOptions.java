package org.spillway.adapter;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;
import org.spillway.gpu.pipeline.gpu.FilterVariant;
import org.spillway.gpu.plan.GpuColumnCaches;
import org.spillway.gpu.plan.IndexJoinNode;
import org.spillway.gpu.transfer.TransferMethod;

/**
 * The execution settings of one connection (or model schema): the device, and optionally a forced transfer
 * method and filter variant (null: the cost model chooses), the bytes of GPU memory the process-wide
 * column cache may hold for it (0: the connection does not use the cache), the equi-join algorithm
 * (AUTO: the join cost model chooses), and the bytes of probe keys per window of the windowed index join
 * ({@code indexJoinWindow}; by default the paper's 32 MiB, more for an index over more than 2 GiB of keys).
 */
public record SpillwayOptions(SpillwayDevice device, TransferMethod transfer, FilterVariant filterVariant,
    long gpuCacheBytes, SpillwayJoinAlgorithm joinAlgorithm, long indexJoinWindowBytes) {
  /** The largest window: 2^27 keys, whose GPU buffers (28 B a key, two windows in flight) stay a few GiB. */
  static final long MAX_INDEX_JOIN_WINDOW_BYTES = 1L << 30;
  /** The default window of the index join: sized by each join's index ({@link IndexJoinNode#windowBytes}). */
  public static final long SIZED_BY_INDEX = 0;
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
    if (indexJoinWindowBytes != SIZED_BY_INDEX
        && (indexJoinWindowBytes < Long.BYTES || indexJoinWindowBytes > MAX_INDEX_JOIN_WINDOW_BYTES)) {
      throw new IllegalArgumentException("indexJoinWindow must hold a key (8 bytes) and be at most 1g, got "
          + indexJoinWindowBytes + " bytes");
    }
  }

  /** Options with the default window of the index join. */
  public SpillwayOptions(SpillwayDevice device, TransferMethod transfer, FilterVariant filterVariant,
      long gpuCacheBytes, SpillwayJoinAlgorithm joinAlgorithm) {
    this(device, transfer, filterVariant, gpuCacheBytes, joinAlgorithm, SIZED_BY_INDEX);
  }

  /** Default options on {@code device}. */
  public static SpillwayOptions of(SpillwayDevice device) {
    return new SpillwayOptions(device, null, null, 0, SpillwayJoinAlgorithm.AUTO);
  }

  /** These options with another equi-join algorithm. */
  public SpillwayOptions withJoinAlgorithm(SpillwayJoinAlgorithm algorithm) {
    return new SpillwayOptions(device, transfer, filterVariant, gpuCacheBytes, algorithm, indexJoinWindowBytes);
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
    return parse(device, transfer, filterVariant, gpuCache, joinAlgorithm, null);
  }

  /** As above, with the {@code indexJoinWindow} property too (a byte count such as 32m; null: the default). */
  public static SpillwayOptions parse(String device, String transfer, String filterVariant, String gpuCache,
      String joinAlgorithm, String indexJoinWindow) {
    return new SpillwayOptions(device == null ? SpillwayDevice.AUTO : parseDevice(device), parseTransfer(transfer),
        parseFilterVariant(filterVariant), parseGpuCache(gpuCache),
        joinAlgorithm == null ? SpillwayJoinAlgorithm.AUTO : SpillwayJoinAlgorithm.parse(joinAlgorithm),
        parseIndexJoinWindow(indexJoinWindow));
  }

  /** A byte count such as 4m, 32m or 1g, at least one 8-byte key and at most 1g; null or blank sizes it by the index. */
  static long parseIndexJoinWindow(String value) {
    if (value == null || value.isBlank()) {
      return SIZED_BY_INDEX;
    }
    long bytes;
    try {
      bytes = GpuColumnCaches.parseBytes(value);
    } catch (IllegalArgumentException e) {
      bytes = -1;
    }
    if (bytes < Long.BYTES || bytes > MAX_INDEX_JOIN_WINDOW_BYTES) {
      throw new IllegalArgumentException("Property 'indexJoinWindow' must be a byte count from 8 to 1g, such as 4m,"
          + " 32m or 1g, not '" + value + "'");
    }
    return bytes;
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
