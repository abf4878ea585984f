package org.spillway.gpu.join.keys;

import org.spillway.gpu.vector.ColumnVector;
import org.spillway.gpu.vector.ExprType;

import java.util.List;

/**
 * One key column of one side of an equi-join: its values and, where it is dictionary-encoded text
 * ({@link ExprType#STRING}), the sorted dictionary its codes index (each table has its own).
 */
public record JoinKeyColumn(ColumnVector values, List<String> dictionary) {
  public JoinKeyColumn {
    if (values.type.kind() == ExprType.Kind.STRING && dictionary == null) {
      throw new IllegalArgumentException("a STRING key column needs the dictionary of its codes");
    }
  }

  /** A key column that is not dictionary-encoded text. */
  public static JoinKeyColumn of(ColumnVector values) {
    return new JoinKeyColumn(values, null);
  }
}
