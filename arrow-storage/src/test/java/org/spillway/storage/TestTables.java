package org.spillway.storage;

import java.util.ArrayList;
import java.util.List;

/** Test helpers that read whole tables back through the public reader API. */
public final class TestTables {
  private TestTables() {
  }

  /** Every row of the table as Java values, in stored order. */
  public static List<List<Object>> rows(StoredTable table) {
    List<List<Object>> rows = new ArrayList<>();
    for (int batch = 0; batch < table.batches().size(); batch++) {
      List<ColumnReader> readers = new ArrayList<>();
      for (int col = 0; col < table.schema().size(); col++) {
        readers.add(table.reader(batch, col));
      }
      for (int row = 0; row < readers.get(0).size(); row++) {
        List<Object> values = new ArrayList<>();
        for (ColumnReader reader : readers) {
          values.add(reader.get(row));
        }
        rows.add(values);
      }
    }
    return rows;
  }
}
