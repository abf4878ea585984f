package org.spillway.adapter.cli;

import java.io.PrintStream;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/** Prints a result set as an aligned text table or as CSV. */
final class ResultPrinter {
  /** Output formats. */
  enum Format { table, csv }

  private final PrintStream out;
  private final Format format;

  ResultPrinter(PrintStream out, Format format) {
    this.out = out;
    this.format = format;
  }

  /** Prints every row and returns how many there were. */
  long print(ResultSet rs) throws SQLException {
    ResultSetMetaData md = rs.getMetaData();
    int columns = md.getColumnCount();
    List<String> header = new ArrayList<>();
    for (int c = 1; c <= columns; c++) {
      header.add(md.getColumnLabel(c));
    }
    List<String[]> rows = new ArrayList<>();
    long count = 0;
    if (format == Format.csv) {
      out.println(csvLine(header.toArray(new String[0])));
    }
    while (rs.next()) {
      String[] row = new String[columns];
      for (int c = 1; c <= columns; c++) {
        Object value = rs.getObject(c);
        row[c - 1] = value == null ? "NULL" : value.toString();
      }
      count++;
      if (format == Format.csv) {
        out.println(csvLine(row));
      } else {
        rows.add(row);
      }
    }
    if (format == Format.table) {
      printTable(header, rows, md);
    }
    out.flush();
    return count;
  }

  private void printTable(List<String> header, List<String[]> rows, ResultSetMetaData md)
      throws SQLException {
    int[] width = new int[header.size()];
    boolean[] right = new boolean[header.size()];
    for (int c = 0; c < width.length; c++) {
      width[c] = header.get(c).length();
      right[c] = isNumeric(md.getColumnType(c + 1));
    }
    for (String[] row : rows) {
      for (int c = 0; c < width.length; c++) {
        width[c] = Math.max(width[c], row[c].length());
      }
    }
    String rule = rule(width);
    out.println(rule);
    out.println(line(header.toArray(new String[0]), width, new boolean[width.length]));
    out.println(rule);
    for (String[] row : rows) {
      out.println(line(row, width, right));
    }
    out.println(rule);
  }

  private static boolean isNumeric(int sqlType) {
    return switch (sqlType) {
      case java.sql.Types.INTEGER, java.sql.Types.BIGINT, java.sql.Types.SMALLINT, java.sql.Types.TINYINT,
          java.sql.Types.DECIMAL, java.sql.Types.NUMERIC, java.sql.Types.DOUBLE, java.sql.Types.FLOAT,
          java.sql.Types.REAL -> true;
      default -> false;
    };
  }

  private static String rule(int[] width) {
    StringBuilder sb = new StringBuilder("+");
    for (int w : width) {
      sb.append("-".repeat(w + 2)).append('+');
    }
    return sb.toString();
  }

  private static String line(String[] values, int[] width, boolean[] right) {
    StringBuilder sb = new StringBuilder("|");
    for (int c = 0; c < width.length; c++) {
      String pad = " ".repeat(width[c] - values[c].length());
      sb.append(' ').append(right[c] ? pad + values[c] : values[c] + pad).append(" |");
    }
    return sb.toString();
  }

  private static String csvLine(String[] values) {
    StringBuilder sb = new StringBuilder();
    for (int c = 0; c < values.length; c++) {
      if (c > 0) {
        sb.append(',');
      }
      String v = values[c];
      boolean quote = v.indexOf(',') >= 0 || v.indexOf('"') >= 0 || v.indexOf('\n') >= 0;
      sb.append(quote ? '"' + v.replace("\"", "\"\"") + '"' : v);
    }
    return sb.toString();
  }
}
