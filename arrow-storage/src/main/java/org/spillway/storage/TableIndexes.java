package org.spillway.storage;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * The index definitions of one table, kept in its directory ({@value #FILE_NAME}), so that dropping the table drops
 * them with it. A write goes to a scratch file renamed over the old one: a crash leaves the old list or the new
 * one, never half of either; a scratch file a crash left is deleted on the next open. No file means no index.
 */
final class TableIndexes {
  static final String FILE_NAME = "indexes.json";
  private static final String SCRATCH_PREFIX = FILE_NAME + ".tmp-";
  private static final int FORMAT_VERSION = 1;
  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private TableIndexes() {}

  /** The indexes of the table in {@code directory}, in the order they were created; deletes abandoned scratch. */
  static List<IndexDefinition> read(Path directory, String table) {
    deleteScratch(directory);
    Path file = directory.resolve(FILE_NAME);
    if (!Files.exists(file)) {
      return List.of();
    }
    try {
      JsonNode root = JSON.readTree(Files.readAllBytes(file));
      if (root.path("format").asInt() != FORMAT_VERSION) {
        throw new StorageException(file + ": unsupported format version " + root.path("format"));
      }
      List<IndexDefinition> indexes = new ArrayList<>();
      for (JsonNode node : root.path("indexes")) {
        indexes.add(new IndexDefinition(text(node, "name", file), table, text(node, "column", file),
            text(node, "kind", file)));
      }
      return List.copyOf(indexes);
    } catch (IOException | RuntimeException e) {
      if (e instanceof StorageException se && se.getMessage().startsWith(file.toString())) {
        throw se;
      }
      String message = "cannot read the index list " + file + ": " + IoErrors.reason(e);
      throw e instanceof JsonProcessingException || e instanceof RuntimeException
          ? StorageException.corrupted(message, e) : new StorageException(message, e);
    }
  }

  /** Replaces the table's list with {@code indexes}, atomically. */
  static void write(Path directory, List<IndexDefinition> indexes) {
    ObjectNode root = JSON.createObjectNode();
    root.put("format", FORMAT_VERSION);
    ArrayNode nodes = root.putArray("indexes");
    for (IndexDefinition index : indexes) {
      nodes.addObject().put("name", index.name()).put("column", index.column()).put("kind", index.kind());
    }
    Path file = directory.resolve(FILE_NAME);
    Path scratch = directory.resolve(SCRATCH_PREFIX + UUID.randomUUID());
    try {
      Files.write(scratch, JSON.writeValueAsBytes(root));
      Files.move(scratch, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      try {
        Files.deleteIfExists(scratch);
      } catch (IOException ignored) {
        // the next open deletes it
      }
      throw new StorageException("cannot write the index list " + file + ": " + IoErrors.reason(e), e);
    }
  }

  private static void deleteScratch(Path directory) {
    try (Stream<Path> files = Files.list(directory)) {
      for (Path scratch : files.filter(f -> f.getFileName().toString().startsWith(SCRATCH_PREFIX)).toList()) {
        Files.deleteIfExists(scratch);
      }
    } catch (IOException e) {
      throw new StorageException("cannot delete the scratch of an interrupted index write in " + directory + ": "
          + IoErrors.reason(e), e);
    }
  }

  private static String text(JsonNode node, String field, Path file) {
    JsonNode value = node.get(field);
    if (value == null || !value.isTextual()) {
      throw new StorageException(file + ": an index without field '" + field + "'");
    }
    return value.asText();
  }
}
