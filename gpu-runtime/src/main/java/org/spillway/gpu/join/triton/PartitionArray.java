package org.spillway.gpu.join.triton;

import static jcuda.driver.JCudaDriver.cuCtxSynchronize;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemsetD8;

import jcuda.Pointer;
import org.apache.arrow.memory.util.MemoryUtil;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.CudaException;
import org.spillway.gpu.device.DeviceBuffer;
import org.spillway.gpu.device.DevicePointer;
import org.spillway.gpu.device.HostBuffer;
import org.spillway.gpu.device.HostMemoryKind;

/**
 * The first pass's partition array of 16-byte tuples, cached in GPU memory for a share of its pages and
 * spilled to pinned mapped host memory for the rest (Lutz et al., SIGMOD '22, Sec. 5.3). The cached pages
 * are spread evenly over the array, so every partition is cached in the same fraction and the join phase
 * keeps the link busy throughout. A page table of base addresses, one per page, stands in for the paper's
 * interleaved virtual mapping (PCIe has no NUMA-mapped GPU memory); kernels address tuple {@code i} as
 * {@code pages[i >> logPage] + (i & (pageTuples - 1))}.
 */
final class PartitionArray implements AutoCloseable {
  /** Smallest and largest automatic page: 4 KiB and 2 MiB of tuples. */
  static final int MIN_LOG_PAGE = 8;
  static final int MAX_LOG_PAGE = 17;

  private final CudaDevice device;
  private final long tuples;
  private final int logPage;
  private final long pages;
  private final long cachedPages;
  private final long[] pageBase;
  private long spillMapped;
  private DeviceBuffer cache;
  private HostBuffer spill;
  private DeviceBuffer pageTable;

  /**
   * An array of {@code tuples} tuples whose pages of {@code 2^logPage} tuples are cached in GPU memory for
   * the share {@code cacheShare} (rounded down to whole pages); {@code purpose} names it in errors.
   */
  PartitionArray(CudaDevice device, long tuples, double cacheShare, int logPage, String purpose) {
    if (!(cacheShare >= 0 && cacheShare <= 1)) {
      throw new IllegalArgumentException("cache share must be in [0, 1], got " + cacheShare);
    }
    if (logPage < 3 || logPage > 24) {
      throw new IllegalArgumentException("page of 2^" + logPage + " tuples: must be 2^3 (128 bytes) to 2^24");
    }
    this.device = device;
    this.tuples = Math.max(1, tuples);
    this.logPage = logPage;
    this.pages = (this.tuples + (1L << logPage) - 1) >>> logPage;
    this.cachedPages = (long) Math.floor(cacheShare * pages + 1e-9);
    long pageBytes = 16L << logPage;
    this.pageBase = new long[Math.toIntExact(pages)];
    try {
      if (cachedPages > 0) {
        cache = device.allocator().allocate(cachedPages * pageBytes, purpose + " (GPU cache, " + cachedPages
            + " pages of " + pageBytes + " bytes)");
      }
      if (pages > cachedPages) {
        spill = device.pinnedAllocator().allocate((pages - cachedPages) * pageBytes);
        spillMapped = HostMemoryKind.mappedDeviceAddress(device, spill.address());
      }
      for (long k = 0; k < pages; k++) {
        long cachedBefore = cachedBefore(k);
        pageBase[(int) k] = isCached(k) ? cache.address() + cachedBefore * pageBytes
            : spillMapped + (k - cachedBefore) * pageBytes;
      }
      pageTable = DeviceArrays.upload(device, pageBase, purpose + " (page table)");
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  /** Page size for an array of {@code tuples}: about a thousand pages, between 4 KiB and 2 MiB. */
  static int automaticLogPage(long tuples) {
    int log = 63 - Long.numberOfLeadingZeros(Math.max(1, tuples >>> 10));
    return Math.max(MIN_LOG_PAGE, Math.min(MAX_LOG_PAGE, log));
  }

  /** Cached pages before page k: the Bresenham spread of cachedPages over pages. */
  private long cachedBefore(long k) {
    return Math.multiplyExact(k, cachedPages) / pages;
  }

  /** True when page {@code k} lives in GPU memory. */
  boolean isCached(long k) {
    return cachedBefore(k + 1) > cachedBefore(k);
  }

  long tuples() {
    return tuples;
  }

  int logPage() {
    return logPage;
  }

  long pages() {
    return pages;
  }

  /** The share of pages in GPU memory. */
  double cacheShare() {
    return (double) cachedPages / pages;
  }

  DevicePointer pageTable() {
    return pageTable.pointer();
  }

  /** Tuples of {@code [from, to)} that lie in spilled (host) pages: what crosses the link for that range. */
  long spilledTuples(long from, long to) {
    long spilled = 0;
    for (long at = from; at < to; ) {
      long page = at >>> logPage;
      long end = Math.min(to, (page + 1) << logPage);
      spilled += isCached(page) ? 0 : end - at;
      at = end;
    }
    return spilled;
  }

  /** Sets every byte of the array to {@code value} (tests poison it to see what a pass writes). */
  void fill(byte value) {
    device.makeCurrent();
    if (cache != null) {
      CudaException.check(cuMemsetD8(cache.pointer(), value, cache.bytes()), "cuMemsetD8(partition cache)");
    }
    if (spill != null) {
      MemoryUtil.setMemory(spill.address(), spill.bytes(), value);
    }
    CudaException.check(cuCtxSynchronize(), "cuCtxSynchronize(partition array fill)");  // before any stream's kernel
  }

  /** Tuples {@code [from, from + count)} as {key, value} pairs (tests read the array back with it). */
  long[] read(long from, int count) {
    device.makeCurrent();
    long[] out = new long[2 * count];
    for (int i = 0; i < count; ) {
      long at = from + i;
      long page = at >>> logPage;
      int n = (int) Math.min(count - i, ((page + 1) << logPage) - at);
      long address = pageBase[(int) page] + ((at & ((1L << logPage) - 1)) << 4);
      if (isCached(page)) {
        long[] part = new long[2 * n];
        CudaException.check(cuMemcpyDtoH(Pointer.to(part), new DevicePointer(address), 16L * n),
            "cuMemcpyDtoH(partition array)");
        System.arraycopy(part, 0, out, 2 * i, 2 * n);
      } else {
        long host = spill.address() + (address - spillMapped);
        for (int k = 0; k < 2 * n; k++) {
          out[2 * i + k] = MemoryUtil.getLong(host + 8L * k);
        }
      }
      i += n;
    }
    return out;
  }

  @Override
  public void close() {
    try (DeviceBuffer c = cache; HostBuffer s = spill; DeviceBuffer t = pageTable) {
      cache = null;
      spill = null;
      pageTable = null;
    }
  }
}
