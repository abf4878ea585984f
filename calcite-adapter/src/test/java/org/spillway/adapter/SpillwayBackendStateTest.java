package org.spillway.adapter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.spillway.gpu.calibrate.MachineProfile;
import org.spillway.gpu.plan.GpuPipelineChoice;

/** The GPU aggregation's hash table is weighed against the GPU memory budget before a pipeline is planned there. */
class SpillwayBackendStateTest {
  /** TPC-H Q18 at SF 30 groups lineitem by order key: about 45 M groups, one sum. */
  private static final long Q18_SF30_GROUPS = 45_000_000;

  @Test void aHashTableOfQ18sOrdersAtSf30FitsAnH100ButNotAnEightGigabyteBudget() {
    MachineProfile h100 = AssumedGpuSite.h100(true).profile();
    assertEquals(Optional.empty(), SpillwayBackend.aggregateStateRefusal(Q18_SF30_GROUPS, 1, h100));
    assertEquals(Optional.empty(), SpillwayBackend.aggregateStateRefusal(0, 1, h100), "no groups, no table");
    MachineProfile small = withBudget(h100, 8L << 30);
    Optional<String> refused = SpillwayBackend.aggregateStateRefusal(Q18_SF30_GROUPS, 1, small);
    assertTrue(refused.isPresent() && refused.get().contains("exceeds half the GPU memory budget (8.6 GB)"),
        refused.toString());
    assertTrue(SpillwayBackend.aggregateStateRefusal(Q18_SF30_GROUPS, 40, h100).isPresent(), "forty calls' state");
  }

  @Test void theTableGrowsToTwiceTheGroupsInPowersOfTwo() {
    long slots = 1L << 27;  // the first power of two at least 2 x 45 M
    assertEquals(8 * (2 + (slots + 1) * 5), GpuPipelineChoice.aggregateStateBytes(Q18_SF30_GROUPS, 1));
    assertTrue(GpuPipelineChoice.aggregateStateBytes(1000, 1) < GpuPipelineChoice.aggregateStateBytes(3000, 1));
  }

  private static MachineProfile withBudget(MachineProfile p, long budget) {
    MachineProfile.GpuInfo g = p.gpu();
    return new MachineProfile(p.formatVersion(), p.createdAt(), p.host(), p.cpuCores(), p.cpuScanGbPerSecond(),
        new MachineProfile.GpuInfo(g.name(), g.memoryBytes(), budget, g.multiprocessors(), g.pageableMemoryAccess()),
        p.gpuUnavailableReason(), p.transferGbPerSecond(), p.unsupportedTransfers(), p.rawPinnedCopyGbPerSecond(),
        p.linkReads(), p.hostWriteGbPerSecond(), p.gpuMemoryReadGbPerSecond(), p.gpuPipelineRunMillis(),
        p.cpuPipelineGbPerSecond(), p.cpuJoinTuplesPerSecond(), p.calibrationMode(), p.gpuRowsNanosPerRow(),
        p.indexLookups());
  }
}
