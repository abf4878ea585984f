import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Arrays;
import org.spillway.tpch.TpchQueries;

/**
 * Times TPC-H queries through a Spillway connection (device=cpu): {@code warm} untimed runs, then {@code runs}
 * timed runs (wall clock from executeQuery to the last row, planning included); prints the median, min and max
 * and a digest of the rows, so that two builds can be checked to return the same rows.
 *
 * <p>Arguments: dataDir queries (e.g. 3,5,10) warm runs [more connection properties, e.g. ";joinAlgorithm=cpu-radix"].
 */
public class TpchQueryTimer {
  public static void main(String[] args) throws Exception {
    Class.forName("org.spillway.adapter.jdbc.SpillwayDriver");
    int warm = Integer.parseInt(args[2]);
    int runs = Integer.parseInt(args[3]);
    String url = "jdbc:spillway:dataDir=" + args[0] + ";device=cpu" + (args.length > 4 ? args[4] : "");
    try (Connection connection = DriverManager.getConnection(url)) {
      for (String q : args[1].split(",")) {
        String sql = TpchQueries.sql(Integer.parseInt(q));
        double[] millis = new double[runs];
        String digest = null;
        for (int i = -warm; i < runs; i++) {
          long start = System.nanoTime();
          StringBuilder rows = new StringBuilder();
          int count = 0;
          try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            int columns = rs.getMetaData().getColumnCount();
            while (rs.next()) {
              for (int c = 1; c <= columns; c++) {
                rows.append(rs.getString(c)).append('|');
              }
              rows.append('\n');
              count++;
            }
          }
          double ms = (System.nanoTime() - start) / 1e6;
          if (i >= 0) {
            millis[i] = ms;
          }
          digest = Integer.toHexString(rows.toString().hashCode()) + " (" + count + " rows)";
          System.err.printf("Q%s run %d: %.0f ms%n", q, i, ms);
        }
        double[] sorted = millis.clone();
        Arrays.sort(sorted);
        System.out.printf("Q%s median %.0f ms, min %.0f, max %.0f, runs %s, result %s%n", q, sorted[runs / 2],
            sorted[0], sorted[runs - 1], Arrays.toString(Arrays.stream(millis).mapToLong(Math::round).toArray()),
            digest);
      }
    }
  }
}
