package org.spillway.adapter.cli;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Tests how scripts given to -e and -f are split into statements. */
class SqlScriptTest {
  @Test void splitsAtSemicolonsOutsideQuotesAndComments() {
    String script = "select 'a;b' from t; -- a comment; still a comment\n"
        + "select \"x;y\" /* ; */ from u;;\n  select 'it''s; fine'  ";
    assertEquals(List.of("select 'a;b' from t", "select \"x;y\"   from u", "select 'it''s; fine'"),
        SqlScript.split(script));
  }

  @Test void blankScriptHasNoStatements() {
    assertEquals(List.of(), SqlScript.split("  ;\n -- only a comment\n"));
  }

  @Test void unterminatedQuoteKeepsTheRestForTheParserToReport() {
    assertEquals(List.of("select 'open; end"), SqlScript.split("select 'open; end"));
  }
}
