package org.spillway.adapter;

import java.util.List;
import org.apache.calcite.jdbc.CalcitePrepare;
import org.apache.calcite.jdbc.CalciteSchema;
import org.spillway.storage.Catalog;

/** Finds the Spillway catalog a statement that Spillway runs itself (DDL) works on. */
final class SpillwaySchemas {
  private SpillwaySchemas() {}

  /**
   * The catalog of the named schema, or of the connection's default schema; {@code keeps} says what only a Spillway
   * catalog keeps, for the error when the schema is another kind.
   */
  static Catalog catalog(CalcitePrepare.Context context, String schemaName, String keeps) {
    CalciteSchema schema = context.getMutableRootSchema();
    for (String name : schemaName != null ? List.of(schemaName) : context.getDefaultSchemaPath()) {
      CalciteSchema sub = schema.getSubSchema(name, false);
      if (sub == null) {
        throw new SpillwayStatementException(SpillwayIndexStatements.UNDEFINED_TABLE, "schema " + name
            + " does not exist");
      }
      schema = sub;
    }
    if (!(schema.schema instanceof SpillwaySchema spillway)) {
      throw new SpillwayStatementException(SpillwayIndexStatements.UNDEFINED_TABLE, "schema " + schema.getName()
          + " is not a Spillway catalog, which alone keeps " + keeps);
    }
    return spillway.catalog();
  }
}
