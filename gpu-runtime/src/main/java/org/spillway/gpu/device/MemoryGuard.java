package org.spillway.gpu.device;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.List;
import java.util.function.Supplier;

/**
 * Checks a large allocation (a join's row ids, a gathered column) against the memory a query may still take
 * before making it, and fails with a {@link SpillwayResourceException} that says what needed how much instead of
 * letting the JVM throw {@link OutOfMemoryError}, which may hit any thread (of a shell or a server).
 *
 * <p>Available is the heap's maximum less its live data (as the last collection left it, plus what was allocated
 * since then is not counted: a collection can reclaim it), or, where the system property
 * {@value #LIMIT_PROPERTY} is set (bytes, or with a k, m or g suffix), that many bytes per allocation: tests set a
 * small limit to reach the error without exhausting the machine.
 */
public final class MemoryGuard {
  /** System property: bytes one large allocation of a query may take (default: the heap's free room). */
  public static final String LIMIT_PROPERTY = "spillway.memory.limit";

  /**
   * The heap's pools, asked once: the JVM's pools do not change while it runs, and asking the management factory for
   * them on every check (per morsel of a pipeline's output) took a lock and built their names each time.
   */
  private static final List<MemoryPoolMXBean> HEAP_POOLS = ManagementFactory.getMemoryPoolMXBeans().stream()
      .filter(pool -> pool.getType() == MemoryType.HEAP).toList();

  private MemoryGuard() {
  }

  /** Fails unless {@code bytes} more for {@code what} (e.g. "the join of orders and lineitem") fit. */
  public static void require(String what, long bytes) {
    require(bytes, () -> what);
  }

  /** As {@link #require(String, long)}, the description made only where the check fails (hot callers). */
  public static void require(long bytes, Supplier<String> what) {
    long available = available();
    if (bytes > available) {
      throw new SpillwayResourceException("out of memory: " + what.get() + " needs " + bytes + " bytes, " + available
          + " available (" + describeLimit() + ")");
    }
  }

  /** Bytes an allocation may take now. */
  public static long available() {
    Long limit = configuredLimit();
    return limit != null ? limit : Runtime.getRuntime().maxMemory() - liveHeap();
  }

  static String describeLimit() {
    Long limit = configuredLimit();
    return limit != null ? "-D" + LIMIT_PROPERTY + "=" + limit
        : "heap -Xmx " + Runtime.getRuntime().maxMemory() + " bytes; raise -Xmx or narrow the query";
  }

  private static Long configuredLimit() {
    String value = System.getProperty(LIMIT_PROPERTY);
    return value == null || value.isBlank() ? null : parseBytes(value.trim());
  }

  /** Parses a byte count with an optional binary suffix (k, m, g). */
  static long parseBytes(String value) {
    char unit = Character.toLowerCase(value.charAt(value.length() - 1));
    int shift = switch (unit) {
      case 'k' -> 10;
      case 'm' -> 20;
      case 'g' -> 30;
      default -> 0;
    };
    try {
      return Long.parseLong(shift == 0 ? value : value.substring(0, value.length() - 1)) << shift;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(LIMIT_PROPERTY + " must be a byte count like 512m, got '" + value + "'", e);
    }
  }

  /** Heap held by live data: per pool, its use after the last collection (where known), else its use now. */
  private static long liveHeap() {
    long live = 0;
    for (MemoryPoolMXBean pool : HEAP_POOLS) {
      MemoryUsage afterGc = pool.getCollectionUsage();
      MemoryUsage now = pool.getUsage();
      live += afterGc != null && afterGc.getUsed() <= now.getUsed() ? afterGc.getUsed() : now.getUsed();
    }
    return live;
  }
}
