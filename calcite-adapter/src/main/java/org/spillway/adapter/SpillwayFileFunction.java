package org.spillway.adapter;

import java.nio.file.Path;
import java.util.List;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.schema.FunctionParameter;
import org.apache.calcite.schema.TableMacro;
import org.apache.calcite.schema.TranslatableTable;
import org.spillway.storage.StoredTable;
import org.spillway.storage.imports.ImportFormat;

/**
 * The table functions {@code read_parquet(path)}, {@code read_arrow(path)} and {@code read_csv(path)}: in
 * {@code SELECT ... FROM TABLE(read_parquet('/data/x.parquet'))} the file is a table of the connection, scanned by
 * Spillway's operators like any other ({@link SpillwayFileTables} imports it once per process). The path is a
 * literal: the planner needs the file's columns.
 */
final class SpillwayFileFunction implements TableMacro {
  private final ImportFormat format;
  private final SpillwaySchema schema;

  SpillwayFileFunction(ImportFormat format, SpillwaySchema schema) {
    this.format = format;
    this.schema = schema;
  }

  @Override public TranslatableTable apply(List<? extends Object> arguments) {
    Object path = arguments.get(0);
    if (!(path instanceof String text)) {
      throw new SpillwayStatementException(SpillwayIndexStatements.INVALID_PARAMETER, "read_"
          + format.name().toLowerCase(java.util.Locale.ROOT) + " takes the file's path as a string literal, not "
          + path);
    }
    StoredTable table = SpillwayFileTables.table(Path.of(text), format);
    return new SpillwayTable(SpillwayFileTables.catalog(), table.name(), schema.options(), schema.deviceUsage());
  }

  @Override public List<FunctionParameter> getParameters() {
    return List.of(new FunctionParameter() {
      @Override public int getOrdinal() {
        return 0;
      }

      @Override public String getName() {
        return "path";
      }

      /** A Java type: Calcite passes a literal to a table macro only as the Java value of its parameter's type. */
      @Override public RelDataType getType(RelDataTypeFactory typeFactory) {
        return typeFactory.createJavaType(String.class);
      }

      @Override public boolean isOptional() {
        return false;
      }
    });
  }
}
