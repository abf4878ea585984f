package org.spillway.adapter;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.spillway.tpch.ProgressListener;
import org.spillway.tpch.TpchGenerator;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Mounts a Spillway catalog through a Calcite model.json, with a data directory relative to the model. */
class SpillwaySchemaFactoryTest {
  @TempDir static Path dir;

  @BeforeAll static void generate() {
    TpchGenerator.generate(dir.resolve("tpch"), 0.001, 2, ProgressListener.NONE);
  }

  @AfterAll static void release() {
    CatalogRegistry.close(dir.resolve("tpch"));
  }

  private static Path model(String operand) throws Exception {
    Path model = dir.resolve("model-" + operand.hashCode() + ".json");
    Files.writeString(model, "{\"version\": \"1.0\", \"defaultSchema\": \"tpch\", \"schemas\": [{"
        + "\"type\": \"custom\", \"name\": \"tpch\", "
        + "\"factory\": \"org.spillway.adapter.SpillwaySchemaFactory\", \"operand\": " + operand + "}]}");
    return model;
  }

  @Test void relativeDataDirResolvesAgainstTheModel() throws Exception {
    String url = "jdbc:calcite:model=" + model("{\"dataDir\": \"tpch\"}") + ";lex=JAVA";
    try (Connection c = DriverManager.getConnection(url);
         Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("select count(*) from region")) {
      assertTrue(rs.next());
      assertEquals(5, rs.getInt(1));
    }
  }

  @Test void missingOperandIsNamed() throws Exception {
    String url = "jdbc:calcite:model=" + model("{}");
    // Calcite's model handler wraps what a schema factory throws; the reason must survive in the chain.
    Exception e = assertThrows(Exception.class, () -> DriverManager.getConnection(url).close());
    StringBuilder chain = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) {
      chain.append(t.getMessage()).append('\n');
    }
    assertTrue(chain.toString().contains("needs the operand 'dataDir'"), chain::toString);
  }
}
