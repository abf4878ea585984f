package org.spillway.adapter;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.spillway.adapter.jdbc.SpillwayDriver;
import org.spillway.gpu.calibrate.MachineProfiles;
import org.spillway.tpch.ProgressListener;
import org.spillway.tpch.TpchGenerator;
import org.spillway.tpch.TpchQueries;

import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Every operator of the 22 TPC-H plans runs in Spillway (issue #13): EXPLAIN shows one converter at the top and
 * only Spillway nodes under it, but for the operators listed in {@link #KNOWN}, which other work removes.
 */
class SpillwayTpchOperatorsTest {
  /** Enumerable operators still expected, by query (delete an entry when its operator moves into Spillway). */
  private static final Map<Integer, List<String>> KNOWN = Map.of();

  @TempDir static Path dir;
  private static AutoCloseable profile;

  @BeforeAll static void generate() {
    profile = MachineProfiles.pin(MachineProfiles.uncalibrated());
    TpchGenerator.generate(dir, 0.001, 1, ProgressListener.NONE);
  }

  @AfterAll static void closeCatalogs() throws Exception {
    CatalogRegistry.close(dir);
    profile.close();
  }

  @ParameterizedTest(name = "Q{0}")
  @ValueSource(ints = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22})
  void onlySpillwayOperatorsUnderTheConverter(int query) throws SQLException {
    String url = SpillwayDriver.CONNECT_STRING_PREFIX + "dataDir=" + dir + ";device=cpu";
    String plan = String.join("\n", SpillwayAssert.rows(url, "EXPLAIN PLAN FOR " + TpchQueries.sql(query)));
    List<String> enumerable = new ArrayList<>();
    int converters = 0;
    for (String line : plan.split("\n")) {
      String operator = line.strip().replaceFirst("\\(.*$", "");
      if (operator.equals("SpillwayToEnumerableConverter")) {
        converters++;
      } else if (!operator.isEmpty() && !operator.startsWith("Spillway")) {
        enumerable.add(operator);
      }
    }
    assertEquals(KNOWN.getOrDefault(query, List.of()), enumerable, () -> "Q" + query + ":\n" + plan);
    assertEquals(KNOWN.containsKey(query) ? converters : 1, converters, () -> "Q" + query + ":\n" + plan);
  }
}
