package org.spillway.adapter;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.calcite.rel.core.JoinRelType;
import org.junit.jupiter.api.Test;
import org.spillway.adapter.SpillwayStatistics.KeyStatistics;

/**
 * Which build keys a GPU probe takes as pairing each probe row once: keys unique in their table for every join, keys
 * an aggregation made unique only for an INNER join (at SF 10 a LEFT join on Q13's counts per customer let a GPU
 * pipeline probe them and fall back to the CPU on their NULL-extended group keys).
 */
class SpillwayKeyStatisticsTest {
  @Test void derivedUniqueKeysPairOnceOnlyForInnerJoins() {
    KeyStatistics stored = new KeyStatistics(1L, 100L, 100, true);
    KeyStatistics derived = new KeyStatistics(1L, 100L, 100, false, true);
    KeyStatistics repeated = new KeyStatistics(1L, 100L, 40, false);
    for (JoinRelType type : new JoinRelType[] {JoinRelType.INNER, JoinRelType.LEFT}) {
      assertTrue(stored.pairsOnce(type), type.toString());
      assertFalse(repeated.pairsOnce(type), type.toString());
    }
    assertTrue(derived.pairsOnce(JoinRelType.INNER));
    assertFalse(derived.pairsOnce(JoinRelType.LEFT));
  }
}
