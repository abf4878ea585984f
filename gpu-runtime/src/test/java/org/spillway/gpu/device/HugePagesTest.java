package org.spillway.gpu.device;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.arrow.memory.util.MemoryUtil;
import org.junit.jupiter.api.Test;

/**
 * The huge-page advice large pinned buffers ask for: taken exactly where the JVM can call madvise (Java 22 and later)
 * and the kernel offers transparent huge pages; anywhere else refused without harm.
 */
class HugePagesTest {
  private static final Path THP = Path.of("/sys/kernel/mm/transparent_hugepage/enabled");

  @Test void adviceIsTakenWhereTheJvmAndTheKernelOfferIt() throws IOException {
    boolean jvm = Runtime.version().feature() >= 22;
    boolean kernel = Files.isReadable(THP) && !Files.readString(THP).contains("[never]");
    long raw = MemoryUtil.allocateMemory(2 * HugePages.BYTES);
    try {
      long aligned = (raw + HugePages.BYTES - 1) / HugePages.BYTES * HugePages.BYTES;
      assertEquals(jvm && kernel, HugePages.advise(aligned, HugePages.BYTES));
      assertEquals(jvm, HugePages.wanted() || "false".equalsIgnoreCase(System.getProperty(HugePages.PROPERTY)));
    } finally {
      MemoryUtil.freeMemory(raw);
    }
  }
}
