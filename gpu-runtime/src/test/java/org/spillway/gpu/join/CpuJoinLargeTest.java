package org.spillway.gpu.join;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.spillway.gpu.join.CpuJoinTest.Relation;
import org.spillway.gpu.join.nopa.CpuNopaHashJoin;
import org.spillway.gpu.join.radix.CpuRadixJoin;

/**
 * Both joins at a size where NOPA's table leaves the caches and the radix join chooses its bits itself
 * (one and two passes), against the reference join; a few seconds, so tagged slow.
 */
@Tag("slow")
class CpuJoinLargeTest {
  @Test
  void millionsOfRowsWithDuplicatesNullsAndSkew() {
    long seed = System.nanoTime() * 0x9E3779B97F4A7C15L;
    SplittableRandom random = new SplittableRandom(seed);
    ZipfDistribution zipf = new ZipfDistribution(400_000, 1.0);
    Relation r = Relation.of(1 << 20, () -> random.nextInt(600_000) * 0xD6E8FEB86659FD93L, random, 0.01);
    Relation s = Relation.of(1 << 22, () -> zipf.sample(random) * 0xD6E8FEB86659FD93L, random, 0.01);
    try (EquiJoin nopa = new CpuNopaHashJoin(2); EquiJoin radix = new CpuRadixJoin(2);
        EquiJoin twoPass = new CpuRadixJoin(2, 14)) {
      for (JoinType type : JoinType.values()) {
        long[] expected = ReferenceJoin.pairs(r.input(), s.input(), type);
        long[] expectedAggregate = ReferenceJoin.aggregate(expected, r.payloads(), s.payloads());
        for (EquiJoin join : new EquiJoin[] {nopa, radix, twoPass}) {
          JoinResult pairs = join.join(r.input(), s.input(), type, JoinOutput.MATERIALIZED);
          String where = type + ", " + pairs.algorithm() + ", seed " + seed;
          assertArrayEquals(expected, ReferenceJoin.pairsOf(pairs), where);
          JoinResult agg = join.join(r.input(), s.input(), type, JoinOutput.AGGREGATED);
          assertArrayEquals(expectedAggregate,
              new long[] {agg.rowCount(), agg.buildPayloadSum(), agg.probePayloadSum()}, where + " aggregated");
          if (join == radix) {
            // About 1.04 M non-NULL build rows at 32 B each need 2^5 partitions to fit 1 MiB of L2.
            assertEquals("radix/bits=5+0", pairs.algorithm(), where);
          }
        }
      }
    }
  }
}
