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
import java.util.ArrayList;
import java.util.List;

/**
 * The JSON sidecar of a table directory ({@value #FILE_NAME}): schema, statistics, which text columns are
 * dictionary-encoded, and the IPC files in load order with their sizes and checksums. Reading it is cheap,
 * so catalogs open fast. Format 1 (before checksums) listed only the file names: {@link #checksums} is then
 * empty and the files load unverified. A column's {@code sorted} flag is optional in both formats: readers before it
 * ignore it, and a table written before it reads as not known sorted, so it needs no new format version.
 */
record TableMetadata(String name, TableSchema schema, TableStatistics statistics, List<Boolean> dictionaryEncoded,
    List<String> files, List<FileChecksum> checksums) {
  static final String FILE_NAME = "table.json";
  private static final int FORMAT_VERSION = 2;
  private static final int FORMAT_WITHOUT_CHECKSUMS = 1;
  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  TableMetadata {
    dictionaryEncoded = List.copyOf(dictionaryEncoded);
    files = List.copyOf(files);
    checksums = List.copyOf(checksums);
    if (!checksums.isEmpty() && checksums.size() != files.size()) {
      throw new IllegalArgumentException(checksums.size() + " checksums for " + files.size() + " files");
    }
  }

  /** A table written with checksums of its files. */
  TableMetadata(String name, TableSchema schema, TableStatistics statistics, List<Boolean> dictionaryEncoded,
      List<FileChecksum> checksums) {
    this(name, schema, statistics, dictionaryEncoded, checksums.stream().map(FileChecksum::name).toList(), checksums);
  }

  /** Whether the files have checksums (false for tables written in format 1). */
  boolean verifiable() {
    return !checksums.isEmpty() || files.isEmpty();
  }

  void write(Path directory) {
    ObjectNode root = JSON.createObjectNode();
    root.put("format", FORMAT_VERSION);
    root.put("name", name);
    root.put("rowCount", statistics.rowCount());
    ArrayNode columns = root.putArray("columns");
    for (int i = 0; i < schema.size(); i++) {
      ColumnDef column = schema.column(i);
      ColumnStatistics stats = statistics.column(i);
      ObjectNode node = columns.addObject();
      node.put("name", column.name());
      node.put("type", column.type().toDeclaration());
      node.put("dictionary", dictionaryEncoded.get(i));
      node.put("nullCount", stats.nullCount());
      node.put("distinctCount", stats.distinctCount());
      node.putPOJO("min", ValueConversions.toJson(column.type(), stats.min()));
      node.putPOJO("max", ValueConversions.toJson(column.type(), stats.max()));
      node.put("sorted", stats.sorted());
    }
    ArrayNode fileNodes = root.putArray("files");
    for (FileChecksum checksum : checksums) {
      ObjectNode node = fileNodes.addObject();
      node.put("name", checksum.name());
      node.put("bytes", checksum.bytes());
      ArrayNode crcs = node.putArray("crc32c");
      checksum.chunkCrcs().forEach(crcs::add);
    }
    Path file = directory.resolve(FILE_NAME);
    try {
      JSON.writeValue(file.toFile(), root);
    } catch (IOException e) {
      throw new StorageException("cannot write " + file + ": " + e.getMessage(), e);
    }
  }

  static TableMetadata read(Path directory) {
    Path file = directory.resolve(FILE_NAME);
    try {
      JsonNode root = JSON.readTree(Files.readAllBytes(file));
      int format = root.path("format").asInt();
      if (format != FORMAT_VERSION && format != FORMAT_WITHOUT_CHECKSUMS) {
        throw new StorageException(file + ": unsupported format version " + root.path("format"));
      }
      List<ColumnDef> columns = new ArrayList<>();
      List<ColumnStatistics> stats = new ArrayList<>();
      List<Boolean> dictionary = new ArrayList<>();
      for (JsonNode node : required(root, "columns", file)) {
        ColumnDef column = ColumnDef.of(required(node, "name", file).asText(), required(node, "type", file).asText());
        columns.add(column);
        dictionary.add(node.path("dictionary").asBoolean(false));
        stats.add(new ColumnStatistics(column.name(),
            ValueConversions.fromJson(column.type(), textOrNull(node.get("min"))),
            ValueConversions.fromJson(column.type(), textOrNull(node.get("max"))),
            node.path("nullCount").asLong(), node.path("distinctCount").asLong(),
            node.path("sorted").asBoolean(false)));
      }
      List<String> files = new ArrayList<>();
      List<FileChecksum> checksums = new ArrayList<>();
      for (JsonNode node : required(root, "files", file)) {
        if (format == FORMAT_WITHOUT_CHECKSUMS) {
          files.add(node.asText());
        } else {
          List<Long> crcs = new ArrayList<>();
          required(node, "crc32c", file).forEach(crc -> crcs.add(crc.asLong()));
          checksums.add(new FileChecksum(required(node, "name", file).asText(), required(node, "bytes", file).asLong(),
              crcs));
          files.add(checksums.get(checksums.size() - 1).name());
        }
      }
      TableStatistics statistics = new TableStatistics(required(root, "rowCount", file).asLong(), stats);
      return new TableMetadata(required(root, "name", file).asText(), new TableSchema(columns), statistics,
          dictionary, files, checksums);
    } catch (IOException | RuntimeException e) {
      if (e instanceof StorageException se && se.getMessage().startsWith(file.toString())) {
        throw se;  // already names the file
      }
      String message = "cannot read table metadata " + file + ": " + IoErrors.reason(e);
      // Bytes that read but do not parse are damage; a file that cannot be read is an I/O failure.
      throw e instanceof JsonProcessingException || e instanceof RuntimeException
          ? StorageException.corrupted(message, e) : new StorageException(message, e);
    }
  }

  private static JsonNode required(JsonNode node, String field, Path file) {
    JsonNode value = node.get(field);
    if (value == null || value.isNull()) {
      throw new StorageException(file + ": missing field '" + field + "'");
    }
    return value;
  }

  private static String textOrNull(JsonNode node) {
    return node == null || node.isNull() ? null : node.asText();
  }
}
