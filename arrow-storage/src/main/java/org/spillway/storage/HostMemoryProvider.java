package org.spillway.storage;

import org.apache.arrow.memory.AllocationManager;

import java.util.Optional;

/**
 * Chooses the Arrow allocation manager behind the catalog's memory. Implementations are found with
 * {@link java.util.ServiceLoader} when the root allocator is first created, so that every allocation of the
 * process (loading, generating, importing) comes from the same kind of memory, whoever allocates first.
 */
public interface HostMemoryProvider {
  /** The factory to use, or empty to keep Arrow's default (pageable) memory. */
  Optional<AllocationManager.Factory> allocationManager();
}
