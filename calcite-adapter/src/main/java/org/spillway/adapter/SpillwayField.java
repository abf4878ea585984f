package org.spillway.adapter;

import org.spillway.gpu.vector.ExprType;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * What the columnar pipeline knows about one field of a Spillway node's output: its expression-program
 * type and, for dictionary-encoded text, the sorted dictionary (fetched lazily: loading it loads the table);
 * or why the pipeline cannot carry the field.
 */
record SpillwayField(ExprType type, Supplier<List<String>> dictionary, String unsupported) {
  static SpillwayField of(ExprType type) {
    return new SpillwayField(type, null, null);
  }

  static SpillwayField unsupported(String reason) {
    return new SpillwayField(null, null, reason);
  }

  boolean isSupported() {
    return type != null;
  }

  /** The dictionaries of join key fields, as the runtime plan takes them (null where a key is not text). */
  static List<Supplier<List<String>>> dictionaries(List<SpillwayField> keys) {
    List<Supplier<List<String>>> out = new ArrayList<>();
    for (SpillwayField key : keys) {
      out.add(key.type().kind() == ExprType.Kind.STRING ? key.dictionary() : null);
    }
    return out;
  }
}
