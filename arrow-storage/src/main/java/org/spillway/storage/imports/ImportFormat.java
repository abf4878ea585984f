package org.spillway.storage.imports;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import org.spillway.storage.StorageException;

/** The file formats an import reads. */
public enum ImportFormat {
  PARQUET, ARROW, CSV;

  private static final byte[] ARROW_FILE_MAGIC = "ARROW1".getBytes(StandardCharsets.US_ASCII);

  /** The format named by parquet, arrow (also ipc, feather) or csv (case-insensitive). */
  public static ImportFormat parse(String name) {
    return switch (name.trim().toLowerCase(Locale.ROOT)) {
      case "parquet" -> PARQUET;
      case "arrow", "ipc", "feather", "arrows" -> ARROW;
      case "csv" -> CSV;
      default -> throw new IllegalArgumentException("unknown import format '" + name + "'; use parquet, arrow or csv");
    };
  }

  /** The format a file's extension names: .parquet, .arrow/.arrows/.ipc/.feather, .csv. */
  public static ImportFormat ofFile(Path file) {
    String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
    int dot = name.lastIndexOf('.');
    String extension = dot < 0 ? "" : name.substring(dot + 1);
    try {
      return parse(extension);
    } catch (IllegalArgumentException e) {
      throw new StorageException(file + ": cannot tell the format from the extension '" + extension
          + "'; name the file .parquet, .arrow or .csv, or pass the format (--format parquet|arrow|csv)");
    }
  }

  /** Whether an Arrow IPC file is in the file format (footer, random access) rather than the stream format. */
  static boolean isArrowFileFormat(Path file) {
    try (InputStream in = Files.newInputStream(file)) {
      return Arrays.equals(in.readNBytes(ARROW_FILE_MAGIC.length), ARROW_FILE_MAGIC);
    } catch (IOException e) {
      throw new StorageException("cannot read " + file + ": " + e.getMessage(), e);
    }
  }
}
