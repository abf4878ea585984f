package org.spillway.adapter.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import sqlline.SqlLine;

/** sqlline over the remote driver: the metadata commands BI-style users try first. */
class SqlLineRemoteTest {
  @RegisterExtension
  static final TpchServerExtension SERVER = new TpchServerExtension();

  @Test
  void tablesColumnsAndDescribeListTheCatalog() throws Exception {
    final String script = String.join("\n", List.of("!tables", "!columns lineitem",
        "!describe orders", "select count(*) as n from nation;", "!quit", ""));
    final ByteArrayOutputStream output = new ByteArrayOutputStream();
    final SqlLine sqlLine = new SqlLine();
    sqlLine.setOutputStream(output);
    sqlLine.setErrorStream(output);
    final SqlLine.Status status = sqlLine.begin(new String[] {
        "-d", "org.apache.calcite.avatica.remote.Driver", "-u", SERVER.jdbcUrl(),
        "-n", "anyone", "-p", "ignored", "--outputformat=csv", "--silent=true"},
        new ByteArrayInputStream(script.getBytes(StandardCharsets.UTF_8)), false);
    final String text = output.toString(StandardCharsets.UTF_8);
    assertEquals(SqlLine.Status.OK, status, text);
    for (String table : List.of("customer", "lineitem", "nation", "orders", "part", "partsupp",
        "region", "supplier")) {
      assertTrue(text.contains("'spillway','" + table + "','TABLE'"), table + " in\n" + text);
    }
    // !columns upper-cases unquoted names on the remote driver; the server still finds them.
    assertTrue(text.contains("'lineitem','l_shipdate','91','DATE"), text);
    assertTrue(text.contains("'lineitem','l_extendedprice','3','DECIMAL(15, 2)"), text);
    assertTrue(text.contains("'orders','o_orderdate','91','DATE"), text);
    assertTrue(text.contains("'25'"), text);
  }
}
