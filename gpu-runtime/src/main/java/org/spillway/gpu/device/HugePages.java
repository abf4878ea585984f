package org.spillway.gpu.device;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Array;
import java.util.Optional;

/**
 * Asks Linux to back a range of host memory with transparent huge pages ({@code madvise(MADV_HUGEPAGE)}) before it is
 * touched: registering (pinning) a buffer of tens of GiB then faults and locks 2 MiB pages instead of 4 KiB ones,
 * which takes less than half the time. (The GPU's random reads of such a buffer over the link were measured the same
 * either way: its own page tables, not the host's pages, decide its translations.) Where the call does not exist or
 * the kernel refuses (no THP), the memory stays as it is; nothing else changes. The call goes through the foreign
 * function API of the running JVM (Java 22 and later), looked up reflectively since the project compiles for Java 17;
 * on older JVMs there is no advice.
 */
final class HugePages {
  /** The huge page size the advice asks for (x86-64's). */
  static final long BYTES = 2L << 20;
  /** System property that, set to false, leaves large pinned buffers on the system's default pages. */
  static final String PROPERTY = "spillway.pinned.hugePages";
  private static final int MADV_HUGEPAGE = 14;
  private static final Optional<MethodHandle> MADVISE = lookup();

  private HugePages() {}

  /** Whether large pinned buffers ask for huge pages: unless the property says false, where madvise exists. */
  static boolean wanted() {
    return MADVISE.isPresent() && !"false".equalsIgnoreCase(System.getProperty(PROPERTY));
  }

  /** Advises huge pages for {@code bytes} from {@code address} (both multiples of {@link #BYTES}); false if refused. */
  static boolean advise(long address, long bytes) {
    if (MADVISE.isEmpty()) {
      return false;
    }
    try {
      return (int) MADVISE.get().invoke(address, bytes, MADV_HUGEPAGE) == 0;
    } catch (Throwable e) {
      return false;
    }
  }

  /** madvise as a handle of (long address, long bytes, int advice) -> int, or empty. */
  private static Optional<MethodHandle> lookup() {
    try {
      Class<?> linkerClass = Class.forName("java.lang.foreign.Linker");
      Class<?> layoutClass = Class.forName("java.lang.foreign.MemoryLayout");
      Class<?> values = Class.forName("java.lang.foreign.ValueLayout");
      Class<?> descriptorClass = Class.forName("java.lang.foreign.FunctionDescriptor");
      Class<?> segmentClass = Class.forName("java.lang.foreign.MemorySegment");
      Class<?> optionClass = Class.forName("java.lang.foreign.Linker$Option");
      Object linker = linkerClass.getMethod("nativeLinker").invoke(null);
      Object lookup = linkerClass.getMethod("defaultLookup").invoke(linker);
      Optional<?> symbol = (Optional<?>) Class.forName("java.lang.foreign.SymbolLookup").getMethod("find", String.class)
          .invoke(lookup, "madvise");
      if (symbol.isEmpty()) {
        return Optional.empty();
      }
      Object layouts = Array.newInstance(layoutClass, 3);
      Array.set(layouts, 0, values.getField("ADDRESS").get(null));
      Array.set(layouts, 1, values.getField("JAVA_LONG").get(null));
      Array.set(layouts, 2, values.getField("JAVA_INT").get(null));
      Object descriptor = descriptorClass.getMethod("of", layoutClass, layouts.getClass())
          .invoke(null, values.getField("JAVA_INT").get(null), layouts);
      Object options = Array.newInstance(optionClass, 0);
      MethodHandle madvise = (MethodHandle) linkerClass.getMethod("downcallHandle", segmentClass, descriptorClass,
          options.getClass()).invoke(linker, symbol.get(), descriptor, options);
      MethodHandle ofAddress = MethodHandles.publicLookup().findStatic(segmentClass, "ofAddress",
          MethodType.methodType(segmentClass, long.class));
      return Optional.of(MethodHandles.filterArguments(madvise, 0, ofAddress));
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {  // before Java 22, or no access
      return Optional.empty();
    }
  }
}
