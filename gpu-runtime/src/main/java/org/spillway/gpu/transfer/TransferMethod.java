package org.spillway.gpu.transfer;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;
import org.spillway.gpu.device.CudaDevice;
import org.spillway.gpu.device.HostMemoryKind;

/** The eight CPU-to-GPU transfer methods of Lutz et al., "Pump Up the Volume" (SIGMOD 2020), Table 1. */
public enum TransferMethod {
  /** Push: cuMemcpyAsync of chunks straight from pageable memory (the driver stages internally). */
  PAGEABLE_COPY("pageable copy", EnumSet.of(HostMemoryKind.PAGEABLE, HostMemoryKind.PINNED)),
  /** Push: CPU threads copy chunks into pinned ring buffers, which are then copied by DMA. */
  STAGED_COPY("staged copy", EnumSet.of(HostMemoryKind.PAGEABLE, HostMemoryKind.PINNED)),
  /** Push: each chunk's pages are registered (pinned) ad hoc, copied by DMA, then unregistered. */
  DYNAMIC_PINNING("dynamic pinning", EnumSet.of(HostMemoryKind.PAGEABLE)),
  /** Push: the data already lives in pinned memory; chunks go by DMA. */
  PINNED_COPY("pinned copy", EnumSet.of(HostMemoryKind.PINNED)),
  /** Push: data in unified memory, cuMemPrefetchAsync per chunk ahead of the kernel. */
  UM_PREFETCH("UM prefetch", EnumSet.of(HostMemoryKind.MANAGED)),
  /** Pull: data in unified memory; the kernel touches it and pages migrate on fault. */
  UM_MIGRATION("UM migration", EnumSet.of(HostMemoryKind.MANAGED)),
  /** Pull: kernels read pinned mapped host memory directly over the link. */
  ZERO_COPY("zero-copy", EnumSet.of(HostMemoryKind.PINNED)),
  /** Pull: kernels read pageable memory through a cache-coherent link (NVLink 2.0, NVLink-C2C). */
  COHERENCE("coherence", EnumSet.of(HostMemoryKind.PAGEABLE, HostMemoryKind.PINNED));

  private final String label;
  private final Set<HostMemoryKind> accepts;

  TransferMethod(String label, Set<HostMemoryKind> accepts) {
    this.label = label;
    this.accepts = accepts;
  }

  /** The paper's name of the method. */
  public String label() {
    return label;
  }

  /** Host memory kinds the method can stream from. */
  public Set<HostMemoryKind> accepts() {
    return accepts;
  }

  /**
   * Whether the method copies each chunk into a device buffer, so that a chunk can gather rows of several host
   * buffers (see {@link TransferPipeline.Part}); the other methods hand the kernel the host memory in place.
   */
  public boolean joinsSegments() {
    return this == PAGEABLE_COPY || this == PINNED_COPY;
  }

  /** The memory kind the method is meant for, which benchmarks allocate. */
  public HostMemoryKind nativeMemory() {
    return accepts.iterator().next();
  }

  /** Whether {@code device} offers what the method needs. */
  public TransferSupport support(CudaDevice device) {
    switch (this) {
      case UM_PREFETCH, UM_MIGRATION:
        return device.managedMemory() ? TransferSupport.yes()
            : TransferSupport.no("device reports MANAGED_MEMORY = 0 (no unified memory)");
      case COHERENCE:
        if (!device.pageableMemoryAccess()) {
          return TransferSupport.no("device reports PAGEABLE_MEMORY_ACCESS = 0: kernels cannot dereference pageable"
              + " host memory over this link (PCIe is not cache coherent)");
        }
        if (!device.pageableAccessUsesHostPageTables()) {
          return TransferSupport.no("pageable access goes through HMM page migration, not the host page tables:"
              + " that is UM migration, not a coherent link");
        }
        return TransferSupport.yes();
      default:
        return TransferSupport.yes();
    }
  }

  /** The method whose {@link #label()} or name is {@code text}, e.g. "zero-copy" or "ZERO_COPY". */
  public static TransferMethod parse(String text) {
    for (TransferMethod m : values()) {
      if (m.label.equalsIgnoreCase(text) || m.name().equalsIgnoreCase(text.replace('-', '_').replace(' ', '_'))) {
        return m;
      }
    }
    throw new IllegalArgumentException("unknown transfer method '" + text + "'; known: "
        + Arrays.toString(values()));
  }
}
