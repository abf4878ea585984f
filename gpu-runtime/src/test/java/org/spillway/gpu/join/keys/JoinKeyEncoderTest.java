package org.spillway.gpu.join.keys;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;

/**
 * {@link JoinKeyEncoder} against a reference that compares key tuples with plain Java equality (numbers as
 * BigDecimals without trailing zeros, text as strings, doubles with -0.0 as 0.0), on random sides with NULLs,
 * duplicates, probe tuples the build side lacks, mixed scales and text with different dictionaries. Every seed
 * is fresh and printed in the failure message ({@code -Dspillway.keys.seed=N} replays one).
 */
class JoinKeyEncoderTest {
  private static final ExprType DEC2 = ExprType.decimal(2);
  private static final ExprType DEC4 = ExprType.decimal(4);
  private static final int ROWS = 400;

  @Test void oneColumnOfOneTypeIsTheLaneAsItIs() {
    check(List.of(ExprType.INT64), List.of(ExprType.INT64));
    check(List.of(ExprType.INT32), List.of(ExprType.INT64));
    check(List.of(ExprType.DATE), List.of(ExprType.DATE));
    check(List.of(DEC2), List.of(DEC2));
    JoinKeyEncoder encoder = JoinKeyEncoder.of(List.of(ExprType.INT64), List.of(ExprType.INT32));
    assertTrue(encoder.keysAsIs());
    long[] values = {5, 7, 9};
    JoinKeys keys = encoder.encodeBuild(List.of(JoinKeyColumn.of(ColumnVector.ofLongs(ExprType.INT64, values, null,
        3))));
    assertSame(values, keys.keys(), "no copy");
  }

  @Test void decimalsOfDifferentScalesAlignExactly() {
    check(List.of(DEC2), List.of(DEC4));
    check(List.of(DEC4), List.of(ExprType.INT32));
    check(List.of(ExprType.INT64, DEC2), List.of(ExprType.INT32, DEC4));
  }

  @Test void aRescaleOverflowMatchesNothing() {
    // Long.MAX_VALUE / 1000 at scale 4 overflows a long: it equals no DECIMAL(4) value
    JoinKeyEncoder encoder = JoinKeyEncoder.of(List.of(ExprType.INT64), List.of(DEC4));
    JoinKeys build = encoder.encodeBuild(List.of(longs(ExprType.INT64, Long.MAX_VALUE / 1000, 1)));
    JoinKeys probe = encoder.encodeProbe(List.of(longs(DEC4, Long.MAX_VALUE, 10_000)));
    assertTrue(build.isNull(0), "an overflowing build value never matches");
    assertFalse(matches(build, probe, 0));
    assertTrue(matches(build, probe, 1), "1 = 1.0000");
  }

  @Test void multiColumnKeysOfLongLanes() {
    check(List.of(DEC2, ExprType.INT32), List.of(DEC2, ExprType.INT32));  // TPC-H Q2's [ps_supplycost, ps_partkey]
    check(List.of(ExprType.INT32, ExprType.DATE), List.of(ExprType.INT32, ExprType.DATE));  // packed
    check(List.of(ExprType.INT32, ExprType.INT64, ExprType.BOOLEAN, ExprType.DATE),
        List.of(ExprType.INT64, ExprType.INT32, ExprType.BOOLEAN, ExprType.DATE));
  }

  @Test void textByValueAcrossDictionariesAndPlainText() {
    check(List.of(ExprType.STRING), List.of(ExprType.STRING));
    check(List.of(ExprType.TEXT), List.of(ExprType.STRING));
    check(List.of(ExprType.STRING), List.of(ExprType.TEXT));
    check(List.of(ExprType.TEXT), List.of(ExprType.TEXT));
    check(List.of(ExprType.STRING, ExprType.INT32), List.of(ExprType.TEXT, ExprType.INT64));
  }

  @Test void doublesCompareAsSql() {
    check(List.of(ExprType.FLOAT64), List.of(ExprType.FLOAT64));
    check(List.of(ExprType.FLOAT64, ExprType.STRING), List.of(ExprType.FLOAT64, ExprType.STRING));
    JoinKeyEncoder encoder = JoinKeyEncoder.of(List.of(ExprType.FLOAT64), List.of(ExprType.FLOAT64));
    JoinKeys build = encoder.encodeBuild(List.of(JoinKeyColumn.of(ColumnVector.ofDoubles(
        new double[] {0.0, Double.NaN}, null, 2))));
    JoinKeys probe = encoder.encodeProbe(List.of(JoinKeyColumn.of(ColumnVector.ofDoubles(
        new double[] {-0.0, Double.longBitsToDouble(0x7ff8_0000_0000_0001L)}, null, 2))));
    assertEquals(build.keys()[0], probe.keys()[0], "-0.0 = 0.0");
    assertEquals(build.keys()[1], probe.keys()[1], "NaN = NaN, as in DuckDB, whatever its payload");
  }

  @Test void bigDecimalsCompareByValue() {
    check(List.of(ExprType.BIG_DECIMAL), List.of(DEC2));
    check(List.of(DEC4, ExprType.INT32), List.of(ExprType.BIG_DECIMAL, ExprType.INT32));
  }

  @Test void probeMorselsFromManyThreadsEqualOneCall() throws Exception {
    List<ExprType> buildTypes = List.of(DEC2, ExprType.STRING);
    List<ExprType> probeTypes = List.of(DEC4, ExprType.STRING);
    SplittableRandom random = new SplittableRandom(seed());
    List<String> buildDictionary = dictionary(random, false);
    List<String> probeDictionary = dictionary(random, true);
    List<JoinKeyColumn> build = columns(buildTypes, 20_000, random, buildDictionary, false);
    List<JoinKeyColumn> probe = columns(probeTypes, 40_000, random, probeDictionary, true);
    JoinKeyEncoder encoder = JoinKeyEncoder.of(buildTypes, probeTypes);
    encoder.encodeBuild(build);
    JoinKeys whole = encoder.encodeProbe(probe);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<JoinKeys>> morsels = new ArrayList<>();
      int morsel = 1000;
      for (int from = 0; from < 40_000; from += morsel) {
        int start = from;
        morsels.add(pool.submit(() -> encoder.encodeProbe(probe.stream().map(c -> new JoinKeyColumn(
            c.values().slice(start, morsel), c.dictionary())).toList())));
      }
      for (int m = 0; m < morsels.size(); m++) {
        JoinKeys part = morsels.get(m).get();
        for (int r = 0; r < morsel; r++) {
          int row = m * morsel + r;
          assertEquals(whole.isNull(row), part.isNull(r), "row " + row);
          if (!whole.isNull(row)) {
            assertEquals(whole.keys()[row], part.keys()[r], "row " + row);
          }
        }
      }
    } finally {
      pool.shutdown();
    }
  }

  @Test void typesThatDoNotCompareAreRejectedWithTheReason() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> JoinKeyEncoder.of(List.of(ExprType.INT32, ExprType.DATE), List.of(ExprType.INT32, ExprType.INT32)));
    assertEquals("join key 1: cannot compare a DATE key with a INT32 key", e.getMessage());
    assertThrows(IllegalArgumentException.class,
        () -> JoinKeyEncoder.of(List.of(ExprType.FLOAT64), List.of(DEC2)));
    assertThrows(IllegalArgumentException.class,
        () -> JoinKeyEncoder.of(List.of(ExprType.TEXT), List.of(ExprType.INT64)));
  }

  @Test void probeBeforeBuildIsAnError() {
    JoinKeyEncoder encoder = JoinKeyEncoder.of(List.of(DEC2, ExprType.INT32), List.of(DEC2, ExprType.INT32));
    assertThrows(IllegalStateException.class, () -> encoder.encodeProbe(List.of(longs(DEC2, 1), longs(ExprType.INT32,
        1))));
  }

  /** Encodes random sides of these key types and compares the keys with the reference, on several seeds. */
  private static void check(List<ExprType> buildTypes, List<ExprType> probeTypes) {
    for (int round = 0; round < 4; round++) {
      long seed = seed();
      SplittableRandom random = new SplittableRandom(seed);
      List<String> buildDictionary = dictionary(random, false);
      List<String> probeDictionary = dictionary(random, true);
      List<JoinKeyColumn> build = columns(buildTypes, ROWS, random, buildDictionary, false);
      List<JoinKeyColumn> probe = columns(probeTypes, ROWS + 50, random, probeDictionary, true);
      JoinKeyEncoder encoder = JoinKeyEncoder.of(buildTypes, probeTypes);
      JoinKeys buildKeys = encoder.encodeBuild(build);
      JoinKeys probeKeys = encoder.encodeProbe(probe);
      String context = encoder + ", seed " + seed;
      Map<List<Object>, Long> keyOfTuple = new HashMap<>();
      Map<Long, List<Object>> tupleOfKey = new HashMap<>();
      Set<List<Object>> dropped = new HashSet<>();
      int matches = 0;
      int misses = 0;
      for (int r = 0; r < ROWS; r++) {
        List<Object> tuple = tuple(build, r);
        if (tuple == null) {
          assertTrue(buildKeys.isNull(r), context + ": build row " + r + " has a NULL");
        } else if (buildKeys.isNull(r)) {
          dropped.add(tuple);  // a value that cannot equal any probe value (a rescale overflow)
        } else {
          long key = buildKeys.keys()[r];
          Long before = keyOfTuple.putIfAbsent(tuple, key);
          assertTrue(before == null || before == key, context + ": equal build tuples, different keys: " + tuple);
          List<Object> other = tupleOfKey.putIfAbsent(key, tuple);
          assertTrue(other == null || other.equals(tuple), context + ": " + tuple + " and " + other + " share key "
              + key);
        }
      }
      for (int r = 0; r < ROWS + 50; r++) {
        List<Object> tuple = tuple(probe, r);
        if (tuple == null) {
          assertTrue(probeKeys.isNull(r), context + ": probe row " + r + " has a NULL");
        } else if (keyOfTuple.containsKey(tuple)) {
          matches++;
          assertFalse(probeKeys.isNull(r), context + ": probe row " + r);
          assertEquals(keyOfTuple.get(tuple), probeKeys.keys()[r], context + ": probe tuple " + tuple);
        } else {
          misses++;
          assertFalse(dropped.contains(tuple), context + ": probe tuple " + tuple + " equals a dropped build tuple");
          assertTrue(probeKeys.isNull(r) || !tupleOfKey.containsKey(probeKeys.keys()[r]),
              context + ": absent probe tuple " + tuple + " matches " + tupleOfKey.get(probeKeys.keys()[r]));
        }
      }
      assertTrue(matches > 0 && misses > 0, context + ": the data should have matches and misses: " + matches
          + ", " + misses);
    }
  }

  /** Row {@code r}'s key values in their Java equality forms, or null where one is NULL. */
  private static List<Object> tuple(List<JoinKeyColumn> columns, int r) {
    List<Object> out = new ArrayList<>();
    for (JoinKeyColumn column : columns) {
      ColumnVector v = column.values();
      if (v.isNull(r)) {
        return null;
      }
      out.add(switch (v.type.kind()) {
        case INT32, INT64, DECIMAL -> BigDecimal.valueOf(v.longs[r], v.type.scale()).stripTrailingZeros();
        case BIG_DECIMAL -> ((BigDecimal) v.objects[r]).stripTrailingZeros();
        case FLOAT64 -> v.doubles[r] == 0.0 ? 0.0 : v.doubles[r];
        case STRING -> column.dictionary().get((int) v.longs[r]);
        case TEXT -> v.objects[r];
        case DATE -> "date " + v.longs[r];
        case BOOLEAN -> v.longs[r] != 0;
      });
    }
    return out;
  }

  /** Random key columns; the probe side's values come from a wider domain, so that some have no build match. */
  private static List<JoinKeyColumn> columns(List<ExprType> types, int rows, SplittableRandom random,
      List<String> dictionary, boolean probe) {
    List<JoinKeyColumn> out = new ArrayList<>();
    for (ExprType type : types) {
      boolean[] nulls = new boolean[rows];
      for (int r = 0; r < rows; r++) {
        nulls[r] = random.nextInt(20) == 0;
      }
      out.add(switch (type.kind()) {
        case FLOAT64 -> {
          double[] d = new double[rows];
          double[] domain = {0.0, -0.0, 1.5, -2.25, Double.NaN, 3.0, 1e300, probe ? 7.0 : 3.0};
          for (int r = 0; r < rows; r++) {
            d[r] = nulls[r] ? 0 : domain[random.nextInt(domain.length)];
          }
          yield JoinKeyColumn.of(ColumnVector.ofDoubles(d, nulls, rows));
        }
        case TEXT -> {
          Object[] o = new Object[rows];
          for (int r = 0; r < rows; r++) {
            o[r] = nulls[r] ? null : dictionary.get(random.nextInt(dictionary.size()));
          }
          yield JoinKeyColumn.of(ColumnVector.ofObjects(type, o, nulls, rows));
        }
        case BIG_DECIMAL -> {
          Object[] o = new Object[rows];
          for (int r = 0; r < rows; r++) {
            // values of any scale, such as 0.05, 0.050 and 0.0500, in hundredths: the DECIMAL columns' small domains
            // (whole hundredths at scale 2, hundredths and quarters of them at scale 4) must share values with them
            // often, or a round may see no match at all
            o[r] = nulls[r] ? null : BigDecimal.valueOf(random.nextInt(probe ? 40 : 30) - 15, 2).setScale(2 + random.nextInt(3));
          }
          yield JoinKeyColumn.of(ColumnVector.ofObjects(type, o, nulls, rows));
        }
        default -> {
          long[] l = new long[rows + 3];  // a lane longer than the column, as pooled arrays are
          for (int r = 0; r < rows; r++) {
            l[r] = nulls[r] ? 0 : value(type, random, dictionary.size(), probe);
          }
          yield new JoinKeyColumn(ColumnVector.ofLongs(type, l, nulls, rows),
              type.kind() == ExprType.Kind.STRING ? dictionary : null);
        }
      });
    }
    return out;
  }

  /** A value from a small domain (so that tuples repeat and match), now and then an extreme one. */
  private static long value(ExprType type, SplittableRandom random, int dictionarySize, boolean probe) {
    int domain = probe ? 16 : 12;
    return switch (type.kind()) {
      case STRING -> random.nextInt(dictionarySize);
      case BOOLEAN -> random.nextInt(2);
      case DECIMAL -> random.nextInt(50) == 0 ? Long.MAX_VALUE - random.nextInt(3)
          : (random.nextInt(domain) - 6) * (type.scale() == 4 ? random.nextBoolean() ? 100 : 25 : 1);
      case INT64 -> random.nextInt(50) == 0 ? Long.MIN_VALUE + random.nextInt(3) : random.nextInt(domain) - 6;
      default -> random.nextInt(domain) - 6;
    };
  }

  /** A sorted dictionary of a random part of a small set of strings: two sides share some strings, not codes. */
  private static List<String> dictionary(SplittableRandom random, boolean probe) {
    TreeSet<String> strings = new TreeSet<>();
    for (String s : List.of("", "a", "b", "BRASS", "brass", "éclair", "x y", "zz", "α", "PROMO")) {
      if (random.nextInt(3) != 0) {
        strings.add(s);
      }
    }
    strings.add("common");
    if (probe) {
      strings.add("probe only");
    }
    return List.copyOf(strings);
  }

  private static JoinKeyColumn longs(ExprType type, long... values) {
    return JoinKeyColumn.of(ColumnVector.ofLongs(type, values, null, values.length));
  }

  private static boolean matches(JoinKeys build, JoinKeys probe, int probeRow) {
    for (int r = 0; r < build.rows(); r++) {
      if (!build.isNull(r) && !probe.isNull(probeRow) && build.keys()[r] == probe.keys()[probeRow]) {
        return true;
      }
    }
    return false;
  }

  private static long seed() {
    String fixed = System.getProperty("spillway.keys.seed");
    return fixed != null ? Long.parseLong(fixed) : System.nanoTime() * 0x9E3779B97F4A7C15L;
  }
}
