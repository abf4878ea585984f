package org.spillway.adapter;

import org.apache.calcite.model.ModelHandler;
import org.apache.calcite.schema.Schema;
import org.apache.calcite.schema.SchemaFactory;
import org.apache.calcite.schema.SchemaPlus;

import java.io.File;
import java.nio.file.Path;
import java.util.Map;

/**
 * Factory that creates a {@link SpillwaySchema} from a Calcite model, e.g.
 * {@code {"type": "custom", "factory": "org.spillway.adapter.SpillwaySchemaFactory",
 * "operand": {"dataDir": "data/tpch-sf1"}}}; a relative dataDir is resolved against the model's directory. The
 * operands device, transfer, filterVariant and gpuCache take the values of the connection properties.
 */
public final class SpillwaySchemaFactory implements SchemaFactory {
  public static final SpillwaySchemaFactory INSTANCE = new SpillwaySchemaFactory();

  /** Public so that Calcite's model handler can instantiate it reflectively. */
  public SpillwaySchemaFactory() {}

  @Override public Schema create(SchemaPlus parentSchema, String name, Map<String, Object> operand) {
    Object dataDir = operand.get("dataDir");
    if (dataDir == null) {
      throw new IllegalArgumentException("Spillway schema '" + name + "' needs the operand 'dataDir'");
    }
    Path dir = Path.of(dataDir.toString());
    Object base = operand.get(ModelHandler.ExtraOperand.BASE_DIRECTORY.camelName);
    if (!dir.isAbsolute() && base != null) {
      dir = ((File) base).toPath().resolve(dir);
    }
    SpillwayOptions options;
    try {
      options = SpillwayOptions.parse(text(operand, "device"), text(operand, "transfer"),
          text(operand, "filterVariant"), text(operand, "gpuCache"), text(operand, "joinAlgorithm"),
          text(operand, "indexJoinWindow"));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("Spillway schema '" + name + "': " + e.getMessage(), e);
    }
    return new SpillwaySchema(CatalogRegistry.open(dir), options);
  }

  private static String text(Map<String, Object> operand, String key) {
    Object value = operand.get(key);
    return value == null ? null : value.toString();
  }
}
