package org.spillway.gpu.plan;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The build side of a pipelined hash join, as the probing pipeline needs it at run time: the node whose output the
 * hash table is built over, the dictionaries of both sides' key columns (null where a key is not dictionary-encoded
 * text; fetched when the table is built, since loading one loads its table), and a label for traces and errors.
 */
public record JoinBuild(PlanNode node, List<Supplier<List<String>>> buildKeyDictionaries,
    List<Supplier<List<String>>> probeKeyDictionaries, String label) {
  public JoinBuild {
    buildKeyDictionaries = new ArrayList<>(buildKeyDictionaries);
    probeKeyDictionaries = new ArrayList<>(probeKeyDictionaries);
  }

  /** The dictionaries of the build side's key columns. */
  public List<List<String>> buildDictionaries() {
    return fetch(buildKeyDictionaries);
  }

  /** The dictionaries of the probe side's key columns. */
  public List<List<String>> probeDictionaries() {
    return fetch(probeKeyDictionaries);
  }

  private static List<List<String>> fetch(List<Supplier<List<String>>> dictionaries) {
    List<List<String>> out = new ArrayList<>();
    for (Supplier<List<String>> dictionary : dictionaries) {
      out.add(dictionary == null ? null : dictionary.get());
    }
    return out;
  }
}
