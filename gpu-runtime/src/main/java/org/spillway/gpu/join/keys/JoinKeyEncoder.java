package org.spillway.gpu.join.keys;

import org.spillway.gpu.vector.ExprType;

import java.util.ArrayList;
import java.util.List;

/**
 * Encodes the equi-join keys of both sides of a join, of any number of columns and any types that compare, into
 * one long per row such that a probe key equals a build key exactly when the key tuples are equal under SQL
 * equality. A NULL in any key column gives a NULL key; a probe tuple that no build row has gets a key that no
 * build key has, so inner, semi, anti and outer joins over the longs are all right.
 *
 * <p>Use: made for the key types of both sides, {@link #encodeBuild} once over the whole build side, then
 * {@link #encodeProbe} over the probe side, in one call or per morsel from many threads at once.
 *
 * <p>How the keys become longs (see {@link JoinKeyPair} for how each column pair compares):
 * <ul>
 *   <li>one column of the same exact type family and scale on both sides (integers of any width, decimals, dates,
 *   booleans): the long lane as it is, no copy and no hashing ({@link #keysAsIs()});</li>
 *   <li>one FLOAT64 column: its canonical bits; one text column: the build side's dictionary codes or ids of
 *   its distinct strings, which the probe side looks up;</li>
 *   <li>two 32-bit columns (INT32, DATE, BOOLEAN on both sides): packed into one long, high word first;</li>
 *   <li>anything else (more columns, wider ones, decimals of different scales): the dense id of the tuple in a
 *   {@link TupleIdTable} of the build side's distinct tuples.</li>
 * </ul>
 */
public final class JoinKeyEncoder {
  private enum Shape { AS_IS, LANE, PACKED, TUPLE_IDS }

  private final List<JoinKeyPair> pairs;
  private final Shape shape;
  /** TUPLE_IDS: the build side's distinct tuples, set by {@link #encodeBuild}. */
  private volatile TupleIdTable table;
  private volatile boolean built;

  private JoinKeyEncoder(List<JoinKeyPair> pairs) {
    this.pairs = pairs;
    if (pairs.size() == 1) {
      JoinKeyPair only = pairs.get(0);
      shape = only.asIs() ? Shape.AS_IS
          : only.lane == JoinKeyPair.Lane.EXACT ? Shape.TUPLE_IDS  // a rescaled lane takes every long value
          : Shape.LANE;
    } else {
      shape = pairs.size() == 2 && pairs.get(0).fits32() && pairs.get(1).fits32() ? Shape.PACKED
          : Shape.TUPLE_IDS;
    }
  }

  /**
   * An encoder for build key columns of {@code buildTypes} joined with probe key columns of {@code probeTypes},
   * pairwise; throws {@link IllegalArgumentException} saying which pair cannot compare.
   */
  public static JoinKeyEncoder of(List<ExprType> buildTypes, List<ExprType> probeTypes) {
    if (buildTypes.isEmpty() || buildTypes.size() != probeTypes.size()) {
      throw new IllegalArgumentException("a join needs as many build key columns as probe key columns, at least "
          + "one: " + buildTypes + " and " + probeTypes);
    }
    List<JoinKeyPair> pairs = new ArrayList<>();
    for (int k = 0; k < buildTypes.size(); k++) {
      try {
        pairs.add(JoinKeyPair.of(buildTypes.get(k), probeTypes.get(k)));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("join key " + k + ": " + e.getMessage(), e);
      }
    }
    return new JoinKeyEncoder(pairs);
  }

  /**
   * Whether the key is one column's long lane as it is on both sides: {@link #encodeProbe} then needs no
   * {@link #encodeBuild} before it, and a caller may hand the column itself to a join instead.
   */
  public boolean keysAsIs() {
    return shape == Shape.AS_IS;
  }

  /** The build side's keys; once per encoder, before any {@link #encodeProbe}. */
  public synchronized JoinKeys encodeBuild(List<JoinKeyColumn> columns) {
    if (built) {
      throw new IllegalStateException("encodeBuild runs once per encoder");
    }
    int rows = rows(columns, "build");
    Flags nulls = new Flags(rows);
    long[][] lanes = new long[pairs.size()][];
    for (int k = 0; k < lanes.length; k++) {
      lanes[k] = pairs.get(k).buildLane(columns.get(k), nulls);
    }
    long[] keys;
    if (shape == Shape.TUPLE_IDS) {
      TupleIdTable ids = new TupleIdTable(lanes.length, rows);
      keys = new long[rows];
      for (int r = 0; r < rows; r++) {
        if (!nulls.get(r)) {
          keys[r] = ids.insert(lanes, r);
        }
      }
      table = ids;
    } else {
      keys = combine(lanes, rows);
    }
    built = true;
    return new JoinKeys(keys, JoinKeys.validity(nulls.array(), rows));
  }

  /**
   * The probe side's keys (all of it, or one morsel): a tuple no build row has gets -1 or, as a plain lane,
   * a value no build row has. Thread-safe once {@link #encodeBuild} returned.
   */
  public JoinKeys encodeProbe(List<JoinKeyColumn> columns) {
    if (!built && shape != Shape.AS_IS) {
      throw new IllegalStateException("encodeProbe before encodeBuild");
    }
    int rows = rows(columns, "probe");
    Flags nulls = new Flags(rows);
    Flags absent = new Flags(rows);
    long[][] lanes = new long[pairs.size()][];
    for (int k = 0; k < lanes.length; k++) {
      lanes[k] = pairs.get(k).probeLane(columns.get(k), nulls, absent);
    }
    long[] keys;
    if (shape == Shape.TUPLE_IDS) {
      TupleIdTable ids = table;
      keys = new long[rows];
      for (int r = 0; r < rows; r++) {
        keys[r] = nulls.get(r) || absent.get(r) ? -1 : ids.find(lanes, r);
      }
    } else {
      // only a text lane flags absent values, as id -1 (ids are never negative)
      keys = combine(lanes, rows);
    }
    return new JoinKeys(keys, JoinKeys.validity(nulls.array(), rows));
  }

  /** The key of a single lane, or two 32-bit lanes packed. */
  private long[] combine(long[][] lanes, int rows) {
    if (shape != Shape.PACKED) {
      return lanes[0];
    }
    long[] high = lanes[0];
    long[] low = lanes[1];
    long[] keys = new long[rows];
    for (int r = 0; r < rows; r++) {
      keys[r] = high[r] << 32 | (low[r] & 0xFFFF_FFFFL);
    }
    return keys;
  }

  private int rows(List<JoinKeyColumn> columns, String side) {
    if (columns.size() != pairs.size()) {
      throw new IllegalArgumentException(side + " side has " + columns.size() + " key columns, the encoder "
          + pairs.size());
    }
    int rows = columns.get(0).values().size;
    for (int k = 0; k < columns.size(); k++) {
      JoinKeyColumn column = columns.get(k);
      JoinKeyPair pair = pairs.get(k);
      ExprType expected = side.equals("build") ? pair.build : pair.probe;
      if (!column.values().type.equals(expected)) {
        throw new IllegalArgumentException(side + " key column " + k + " is " + column.values().type
            + ", the encoder was made for " + expected);
      }
      if (column.values().size != rows) {
        throw new IllegalArgumentException(side + " key columns have " + rows + " and " + column.values().size
            + " rows");
      }
    }
    return rows;
  }

  @Override public String toString() {
    return "JoinKeyEncoder" + pairs + " " + shape;
  }
}
