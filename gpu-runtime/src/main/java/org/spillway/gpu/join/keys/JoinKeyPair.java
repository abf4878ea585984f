package org.spillway.gpu.join.keys;

import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;

import java.math.BigDecimal;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * How one build key column compares with its probe key column under SQL equality, and each side's values as
 * longs that are equal exactly when the SQL values are (the column's "lane"):
 * <ul>
 *   <li>{@link Lane#EXACT}: integers and decimals of any width and scale (rescaled exactly to the larger scale;
 *   a value that overflows there equals nothing on the other side), dates, booleans.</li>
 *   <li>{@link Lane#FLOAT}: FLOAT64 as canonical bits: -0.0 equals 0.0 and, as in DuckDB, NaN equals NaN
 *   (one bit pattern for every NaN).</li>
 *   <li>{@link Lane#VALUE}: text (dictionary codes or strings) and BIG_DECIMAL, compared by value: the build
 *   side's distinct values get ids, the probe side looks its values up.</li>
 * </ul>
 */
final class JoinKeyPair {
  enum Lane { EXACT, FLOAT, VALUE }

  final ExprType build;
  final ExprType probe;
  final Lane lane;
  /** EXACT: the factor that takes each side's values to the common scale (1: as is). */
  private final long buildFactor;
  private final long probeFactor;
  /** VALUE: the build side's distinct values to their ids, set by {@link #buildLane} (read-only afterwards). */
  private volatile Map<Object, Integer> ids;

  private JoinKeyPair(ExprType build, ExprType probe, Lane lane, long buildFactor, long probeFactor) {
    this.build = build;
    this.probe = probe;
    this.lane = lane;
    this.buildFactor = buildFactor;
    this.probeFactor = probeFactor;
  }

  /** The comparison of two key types; throws {@link IllegalArgumentException} with the reason where they cannot. */
  static JoinKeyPair of(ExprType build, ExprType probe) {
    Family b = Family.of(build);
    Family p = Family.of(probe);
    if (b != p) {
      throw new IllegalArgumentException("cannot compare a " + build + " key with a " + probe + " key");
    }
    return switch (b) {
      case NUMBER -> {
        if (build.kind() == ExprType.Kind.BIG_DECIMAL || probe.kind() == ExprType.Kind.BIG_DECIMAL) {
          yield new JoinKeyPair(build, probe, Lane.VALUE, 1, 1);
        }
        int scale = Math.max(build.scale(), probe.scale());
        yield new JoinKeyPair(build, probe, Lane.EXACT, pow10(scale - build.scale()), pow10(scale - probe.scale()));
      }
      case FLOAT -> new JoinKeyPair(build, probe, Lane.FLOAT, 1, 1);
      case TEXT -> new JoinKeyPair(build, probe, Lane.VALUE, 1, 1);
      case DATE, BOOLEAN -> new JoinKeyPair(build, probe, Lane.EXACT, 1, 1);
    };
  }

  /** Whether both sides' long lanes are the lane as they are (no rescaling, no ids, no canonical bits). */
  boolean asIs() {
    return lane == Lane.EXACT && buildFactor == 1 && probeFactor == 1;
  }

  /** Whether every value of both sides fits 32 bits as it is. */
  boolean fits32() {
    return asIs() && fits32(build) && fits32(probe);
  }

  /**
   * The build side's lane, once per encoder (VALUE pairs remember the build values' ids). Rows whose value
   * equals nothing on the probe side (a rescale overflow) are flagged in {@code nulls}, which never match.
   */
  long[] buildLane(JoinKeyColumn column, Flags nulls) {
    ColumnVector v = column.values();
    nulls.or(v.nulls);
    return switch (lane) {
      case EXACT -> rescaled(v, buildFactor, nulls);
      case FLOAT -> canonicalBits(v);
      case VALUE -> buildIds(column, nulls);
    };
  }

  /**
   * The probe side's lane; rows whose value no build row has are flagged in {@code absent} (thread-safe after
   * {@link #buildLane}).
   */
  long[] probeLane(JoinKeyColumn column, Flags nulls, Flags absent) {
    ColumnVector v = column.values();
    nulls.or(v.nulls);
    return switch (lane) {
      case EXACT -> rescaled(v, probeFactor, absent);
      case FLOAT -> canonicalBits(v);
      case VALUE -> probeIds(column, absent);
    };
  }

  /** The long lane itself (no copy where it has exactly the rows), or each value times {@code factor}. */
  private static long[] rescaled(ColumnVector v, long factor, Flags overflows) {
    if (factor == 1) {
      return v.longs.length == v.size ? v.longs : Arrays.copyOf(v.longs, v.size);
    }
    long[] out = new long[v.size];
    long limit = Long.MAX_VALUE / factor;
    for (int r = 0; r < out.length; r++) {
      long x = v.longs[r];
      if (x > limit || x < -limit) {
        overflows.set(r);
      } else {
        out[r] = x * factor;
      }
    }
    return out;
  }

  private static long[] canonicalBits(ColumnVector v) {
    long[] out = new long[v.size];
    for (int r = 0; r < out.length; r++) {
      double d = v.doubles[r];
      // SQL: -0.0 = 0.0; doubleToLongBits maps every NaN to one pattern
      out[r] = Double.doubleToLongBits(d == 0.0 ? 0.0 : d);
    }
    return out;
  }

  /** Dictionary codes are ids as they are (a sorted dictionary has each string once); other values get ids. */
  private long[] buildIds(JoinKeyColumn column, Flags nulls) {
    ColumnVector v = column.values();
    Map<Object, Integer> map = new HashMap<>();
    long[] out;
    if (column.dictionary() != null) {
      List<String> dictionary = column.dictionary();
      for (int code = 0; code < dictionary.size(); code++) {
        map.put(dictionary.get(code), code);
      }
      out = rescaled(v, 1, null);
    } else {
      out = new long[v.size];
      for (int r = 0; r < out.length; r++) {
        if (!nulls.get(r)) {
          Object value = value(column, r);
          Integer id = map.putIfAbsent(value, map.size());
          out[r] = id == null ? map.size() - 1 : id;
        }
      }
    }
    ids = map;
    return out;
  }

  /** The build id of each probe value, -1 (flagged absent) where the build side does not have it. */
  private long[] probeIds(JoinKeyColumn column, Flags absent) {
    Map<Object, Integer> map = ids;
    if (map == null) {
      throw new IllegalStateException("encodeProbe before encodeBuild");
    }
    ColumnVector v = column.values();
    long[] out = new long[v.size];
    if (column.dictionary() != null) {
      int[] translation = translation(column.dictionary(), map);
      for (int r = 0; r < out.length; r++) {
        out[r] = v.isNull(r) ? -1 : translation[(int) v.longs[r]];
      }
    } else {
      for (int r = 0; r < out.length; r++) {
        Integer id = v.isNull(r) ? null : map.get(value(column, r));
        out[r] = id == null ? -1 : id;
      }
    }
    for (int r = 0; r < out.length; r++) {
      if (out[r] < 0) {
        absent.set(r);
      }
    }
    return out;
  }

  /** The last probe dictionary translated, as it is the same for every morsel of a probe side. */
  private volatile Translation lastTranslation;

  private record Translation(List<String> dictionary, int[] ids) {}

  private int[] translation(List<String> dictionary, Map<Object, Integer> map) {
    Translation last = lastTranslation;
    if (last != null && last.dictionary() == dictionary) {
      return last.ids();
    }
    int[] out = new int[dictionary.size()];
    for (int code = 0; code < out.length; code++) {
      Integer id = map.get(dictionary.get(code));
      out[code] = id == null ? -1 : id;
    }
    lastTranslation = new Translation(dictionary, out);
    return out;
  }

  /**
   * A non-NULL value of a VALUE lane as an object whose {@code equals} is SQL equality: text as a string,
   * numbers as BigDecimals without trailing zeros (1.50 = 1.5).
   */
  private static Object value(JoinKeyColumn column, int r) {
    ColumnVector v = column.values();
    ExprType type = v.type;
    return switch (type.kind()) {
      case STRING -> column.dictionary().get((int) v.longs[r]);
      case TEXT -> v.objects[r].toString();
      case BIG_DECIMAL -> ((BigDecimal) v.objects[r]).stripTrailingZeros();
      default -> BigDecimal.valueOf(v.longs[r], type.scale()).stripTrailingZeros();
    };
  }

  private static boolean fits32(ExprType type) {
    return type.kind() == ExprType.Kind.INT32 || type.kind() == ExprType.Kind.DATE
        || type.kind() == ExprType.Kind.BOOLEAN;
  }

  private static long pow10(int exponent) {
    long p = 1;
    for (int i = 0; i < exponent; i++) {
      p *= 10;
    }
    return p;
  }

  /** The families of types whose values compare with each other. */
  private enum Family {
    NUMBER, FLOAT, TEXT, DATE, BOOLEAN;

    static Family of(ExprType type) {
      return switch (type.kind()) {
        case INT32, INT64, DECIMAL, BIG_DECIMAL -> NUMBER;
        case FLOAT64 -> FLOAT;
        case STRING, TEXT -> TEXT;
        case DATE -> DATE;
        case BOOLEAN -> BOOLEAN;
      };
    }
  }

  @Override public String toString() {
    return build + " = " + probe;
  }
}
