package org.spillway.storage;

import java.io.IOException;
import java.io.Reader;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * An RFC 4180 record reader: quoted fields may hold delimiters, line breaks and doubled quotes; lines end
 * with LF or CRLF; blank lines are skipped. Errors carry the line where the record starts.
 */
final class CsvRecordReader {
  private static final int EOF = -1;

  /**
   * Most fields a record may have: far more than any table's columns, and a line of millions of fields (a
   * wrong delimiter over a huge file, a corrupt line) fails here with its line number instead of exhausting
   * the heap with one string per field.
   */
  static final int MAX_FIELDS = 100_000;

  private final Reader in;
  private final String fileName;
  private final char delimiter;
  private final char quote;
  private final char[] buffer = new char[1 << 16];
  private int position;
  private int limit;
  private long line = 1;
  private long recordLine;
  private final List<String> fields = new ArrayList<>();
  private final BitSet quoted = new BitSet();
  private final StringBuilder field = new StringBuilder();

  CsvRecordReader(Reader in, String fileName, char delimiter, char quote) {
    this.in = in;
    this.fileName = fileName;
    this.delimiter = delimiter;
    this.quote = quote;
  }

  /** Reads the next non-blank record; false at end of file. */
  boolean next() {
    while (true) {
      if (!readRecord()) {
        return false;
      }
      boolean blank = fields.size() == 1 && fields.get(0).isEmpty() && !quoted.get(0);
      if (!blank) {
        return true;
      }
    }
  }

  /** Fields of the current record. */
  List<String> fields() {
    return fields;
  }

  /** Whether field i of the current record was quoted (a quoted empty field is an empty string, not NULL). */
  boolean wasQuoted(int i) {
    return quoted.get(i);
  }

  /** 1-based line where the current record starts. */
  long line() {
    return recordLine;
  }

  private boolean readRecord() {
    fields.clear();
    quoted.clear();
    recordLine = line;
    int c = read();
    if (c == EOF) {
      return false;
    }
    while (true) {
      field.setLength(0);
      if (c == quote) {
        quoted.set(fields.size());
        c = readQuoted();
      } else {
        while (c != delimiter && c != '\n' && c != '\r' && c != EOF) {
          field.append((char) c);
          c = read();
        }
      }
      fields.add(field.toString());
      if (c == delimiter && fields.size() == MAX_FIELDS) {
        throw new StorageException(fileName + ":" + recordLine + ": more than " + MAX_FIELDS
            + " fields in one record; is the delimiter '" + delimiter + "' right?");
      }
      if (c == delimiter) {
        c = read();
        continue;
      }
      if (c == '\r') {
        if (peek() == '\n') {
          read();
        }
        line++;
      } else if (c == '\n') {
        line++;
      }
      return true;
    }
  }

  /** Reads a quoted field's content after the opening quote; returns the character after the closing one. */
  private int readQuoted() {
    while (true) {
      int c = read();
      if (c == EOF) {
        throw new StorageException(fileName + ":" + recordLine + ": unterminated quoted field");
      }
      if (c == quote) {
        if (peek() == quote) {
          read();
          field.append(quote);
          continue;
        }
        int after = read();
        if (after != delimiter && after != '\n' && after != '\r' && after != EOF) {
          throw new StorageException(fileName + ":" + line + ": unexpected character '" + (char) after
              + "' after a closing quote");
        }
        return after;
      }
      if (c == '\n') {
        line++;
      }
      field.append((char) c);
    }
  }

  private int read() {
    if (position == limit && !fill()) {
      return EOF;
    }
    return buffer[position++];
  }

  private int peek() {
    if (position == limit && !fill()) {
      return EOF;
    }
    return buffer[position];
  }

  private boolean fill() {
    try {
      int n = in.read(buffer, 0, buffer.length);
      if (n <= 0) {
        return false;
      }
      position = 0;
      limit = n;
      return true;
    } catch (Utf8CsvReader.InvalidUtf8Exception e) {
      throw new StorageException(fileName + ":" + line + ": " + e.getMessage(), e);
    } catch (IOException e) {
      throw new StorageException(fileName + ":" + line + ": cannot read: " + e.getMessage(), e);
    }
  }
}
