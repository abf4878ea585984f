package org.spillway.gpu.aggregate;

import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The strings of one plain-text group key of a {@link HashAggregator}, numbered in the order first seen, so
 * that the group table hashes numbers; each partial aggregator numbers its own, and merging renumbers.
 */
final class TextGroupKeys {
  private final Map<String, Integer> ids = new HashMap<>();
  private final List<String> strings = new ArrayList<>();

  /** The number of a string, given one if new. */
  long id(String s) {
    Integer id = ids.get(s);
    if (id == null) {
      id = strings.size();
      ids.put(s, id);
      strings.add(s);
    }
    return id;
  }

  String string(long id) {
    return strings.get((int) id);
  }

  /** The numbers of a TEXT column's rows (NULL rows hold 0 and stay NULL). */
  ColumnVector ids(ColumnVector text) {
    int n = text.size;
    long[] out = new long[n];
    for (int i = 0; i < n; i++) {
      if (!text.isNull(i)) {
        out[i] = id((String) text.objects[i]);
      }
    }
    return ColumnVector.ofLongs(ExprType.INT64, out, text.nulls, n);
  }

  /** A TEXT column of the strings with the given numbers (NULL where {@code nulls} says). */
  ColumnVector strings(long[] ids, boolean[] nulls, int n) {
    Object[] out = new Object[n];
    for (int i = 0; i < n; i++) {
      if (nulls == null || !nulls[i]) {
        out[i] = strings.get((int) ids[i]);
      }
    }
    return ColumnVector.ofObjects(ExprType.TEXT, out, nulls, n);
  }
}
