package org.spillway.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ColumnTypeTest {
  @Test
  void parsesAndPrintsEveryKind() {
    assertEquals(ColumnType.decimal(15, 2), ColumnType.parse("decimal(15, 2)"));
    assertEquals(ColumnType.varchar(25), ColumnType.parse("VARCHAR(25)"));
    assertEquals(ColumnType.chars(1), ColumnType.parse("char"));
    assertEquals(ColumnType.integer(), ColumnType.parse("int"));
    assertEquals(ColumnType.bigint(), ColumnType.parse("BIGINT"));
    assertEquals(ColumnType.float64(), ColumnType.parse("double precision"));
    assertEquals(ColumnType.date().notNull(), ColumnType.parse("date not null"));
    assertEquals(ColumnType.varchar(ColumnType.UNBOUNDED_LENGTH), ColumnType.parse("varchar"));
    for (String sql : new String[] {"DECIMAL(15,2)", "VARCHAR(25)", "CHAR(10)", "INTEGER", "BIGINT", "DOUBLE", "DATE",
        "VARCHAR"}) {
      assertEquals(sql, ColumnType.parse(sql).toString());
      assertEquals(ColumnType.parse(sql).notNull(), ColumnType.parse(ColumnType.parse(sql).notNull().toDeclaration()));
    }
  }

  @Test
  void nullabilityToggles() {
    ColumnType type = ColumnType.decimal(15, 2);
    assertTrue(type.nullable());
    assertFalse(type.notNull().nullable());
    assertTrue(type.notNull().asNullable().nullable());
  }

  @Test
  void rejectsBadTypesWithReason() {
    StorageException tooWide = assertThrows(StorageException.class, () -> ColumnType.parse("DECIMAL(20,2)"));
    assertTrue(tooWide.getMessage().contains("DECIMAL precision 20"), tooWide.getMessage());
    assertThrows(StorageException.class, () -> ColumnType.decimal(5, 6));
    StorageException unknown = assertThrows(StorageException.class, () -> ColumnType.parse("BLOB"));
    assertTrue(unknown.getMessage().contains("BLOB"), unknown.getMessage());
    assertThrows(StorageException.class, () -> ColumnType.parse("INTEGER(3)"));
    assertThrows(StorageException.class, () -> ColumnType.varchar(0));
  }

  @Test
  void schemaLooksUpColumnsCaseInsensitively() {
    TableSchema schema = TableSchema.of(ColumnDef.of("L_OrderKey", "INTEGER"), ColumnDef.of("l_tax", "DECIMAL(15,2)"));
    assertEquals(0, schema.indexOf("l_orderkey"));
    assertEquals(1, schema.indexOf("L_TAX"));
    assertEquals(-1, schema.indexOf("nope"));
    assertThrows(StorageException.class, () -> TableSchema.of(ColumnDef.of("a", "INT"), ColumnDef.of("A", "INT")));
  }
}
