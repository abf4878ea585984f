package org.spillway.storage;

import org.apache.arrow.memory.AllocationManager;

import java.util.Optional;

/** Test service that records being asked and keeps Arrow's default memory. */
public final class RecordingHostMemoryProvider implements HostMemoryProvider {
  static volatile boolean asked;

  @Override public Optional<AllocationManager.Factory> allocationManager() {
    asked = true;
    return Optional.empty();
  }
}
