package org.spillway.gpu.plan;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.spillway.gpu.join.keys.JoinKeyEncoder;
import org.spillway.gpu.vector.ExprType;

/**
 * The equi-join keys of a {@link MaterializedJoinNode}: pairs of a left and a right key column (positions in each
 * side's output), their types, and the dictionaries of dictionary-encoded text keys (null where a key is not text;
 * fetched when the keys are encoded, since loading one loads its table), as the planner checked them.
 */
public record EquiJoinKeys(int[] leftKeys, int[] rightKeys, List<ExprType> leftTypes, List<ExprType> rightTypes,
    List<Supplier<List<String>>> leftDictionaries, List<Supplier<List<String>>> rightDictionaries) {
  public EquiJoinKeys {
    if (rightKeys.length != leftKeys.length || leftTypes.size() != leftKeys.length
        || rightTypes.size() != leftKeys.length || leftDictionaries.size() != leftKeys.length
        || rightDictionaries.size() != leftKeys.length) {
      throw new IllegalArgumentException("join keys of unequal counts: " + leftKeys.length + " left, "
          + rightKeys.length + " right, " + leftTypes.size() + "/" + rightTypes.size() + " types, "
          + leftDictionaries.size() + "/" + rightDictionaries.size() + " dictionaries");
    }
    leftTypes = List.copyOf(leftTypes);
    rightTypes = List.copyOf(rightTypes);
    leftDictionaries = new ArrayList<>(leftDictionaries);  // null entries: List.copyOf takes none
    rightDictionaries = new ArrayList<>(rightDictionaries);
  }

  /**
   * Whether left key columns of {@code leftTypes} can join right ones of {@code rightTypes}, pairwise: every join
   * encodes a row's keys as one long ({@link JoinKeyEncoder}), which throws {@link IllegalArgumentException}
   * saying which pair cannot compare.
   */
  public static void checkComparable(List<ExprType> leftTypes, List<ExprType> rightTypes) {
    JoinKeyEncoder.of(rightTypes, leftTypes);
  }
}
