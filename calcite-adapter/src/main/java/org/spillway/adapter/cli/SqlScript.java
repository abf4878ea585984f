package org.spillway.adapter.cli;

import java.util.ArrayList;
import java.util.List;

/** Splits an SQL script into statements at semicolons outside quotes and comments. */
final class SqlScript {
  private SqlScript() {}

  /** The non-blank statements of a script, without their terminating semicolons. */
  static List<String> split(String script) {
    List<String> statements = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    int i = 0;
    int n = script.length();
    while (i < n) {
      char c = script.charAt(i);
      if (c == '\'' || c == '"') {
        int end = closingQuote(script, i);
        current.append(script, i, end);
        i = end;
      } else if (c == '-' && i + 1 < n && script.charAt(i + 1) == '-') {
        int end = script.indexOf('\n', i);
        i = end < 0 ? n : end;
      } else if (c == '/' && i + 1 < n && script.charAt(i + 1) == '*') {
        int end = script.indexOf("*/", i + 2);
        i = end < 0 ? n : end + 2;
        current.append(' ');
      } else if (c == ';') {
        add(statements, current);
        i++;
      } else {
        current.append(c);
        i++;
      }
    }
    add(statements, current);
    return statements;
  }

  /** Index just past the quote that closes the one at {@code start}; a doubled quote is an escape. */
  private static int closingQuote(String s, int start) {
    char quote = s.charAt(start);
    int i = start + 1;
    while (i < s.length()) {
      if (s.charAt(i) == quote) {
        if (i + 1 < s.length() && s.charAt(i + 1) == quote) {
          i += 2;
          continue;
        }
        return i + 1;
      }
      i++;
    }
    return s.length();
  }

  private static void add(List<String> statements, StringBuilder current) {
    String statement = current.toString().strip();
    if (!statement.isEmpty()) {
      statements.add(statement);
    }
    current.setLength(0);
  }
}
