package org.spillway.adapter;

import org.spillway.gpu.vector.ExprType;

import java.util.ArrayList;
import java.util.List;

/**
 * The build side of a pipelined hash join, as the probing pipeline needs it at run time: the node whose output the
 * hash table is built over, the fields of both sides' key columns (a text key's dictionary comes from its field),
 * and a label for traces and errors.
 */
record SpillwayJoinBuild(SpillwayNode node, List<SpillwayField> buildKeyFields, List<SpillwayField> probeKeyFields,
    String label) {
  SpillwayJoinBuild {
    buildKeyFields = List.copyOf(buildKeyFields);
    probeKeyFields = List.copyOf(probeKeyFields);
  }

  /** The dictionaries of the build side's key columns (null where a key is not dictionary-encoded text). */
  List<List<String>> buildDictionaries() {
    return dictionaries(buildKeyFields);
  }

  /** The dictionaries of the probe side's key columns. */
  List<List<String>> probeDictionaries() {
    return dictionaries(probeKeyFields);
  }

  private static List<List<String>> dictionaries(List<SpillwayField> fields) {
    List<List<String>> out = new ArrayList<>();
    for (SpillwayField field : fields) {
      out.add(field.type().kind() == ExprType.Kind.STRING ? field.dictionary().get() : null);
    }
    return out;
  }
}
