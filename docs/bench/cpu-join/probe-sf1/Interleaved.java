import java.net.*; import java.nio.file.*; import java.sql.*; import java.util.*;
/**
 * Times TPC-H queries on two builds of Spillway in one JVM, each in a class loader of its own, alternating run by run
 * (A, B, A, B, ...), so that a shared machine's changing load hits both alike. Wall clock per run; median and min.
 */
public class Interleaved {
  public static void main(String[] a) throws Exception {
    String dir = a[0]; String[] queries = a[1].split(","); int warm = Integer.parseInt(a[2]); int runs = Integer.parseInt(a[3]);
    String[] labels = {"before", "after"};
    Connection[] conns = new Connection[2]; ClassLoader[] loaders = new ClassLoader[2];
    for (int v = 0; v < 2; v++) {
      String[] cp = a[4 + v].split(":");
      URL[] urls = new URL[cp.length];
      for (int i = 0; i < cp.length; i++) urls[i] = Path.of(cp[i]).toUri().toURL();
      ClassLoader l = new URLClassLoader(urls, ClassLoader.getPlatformClassLoader()); loaders[v] = l;
      Driver d = (Driver) l.loadClass("org.spillway.adapter.jdbc.SpillwayDriver").getConstructor().newInstance();
      Thread.currentThread().setContextClassLoader(l);
      conns[v] = d.connect("jdbc:spillway:dataDir=" + dir + ";device=cpu", new Properties());
    }
    System.out.printf("%-5s %-8s %10s %10s %10s  %s%n", "query", "build", "median ms", "min ms", "max ms", "runs");
    for (String q : queries) {
      String sql = org.spillway.tpch.TpchQueries.sql(Integer.parseInt(q));
      double[][] t = new double[2][runs]; long[] h = new long[2];
      for (int r = -warm; r < runs; r++) {
        for (int v0 = 0; v0 < 2; v0++) {
          int v = (r & 1) == 0 ? v0 : 1 - v0;  // alternate which goes first
          Thread.currentThread().setContextClassLoader(loaders[v]); long t0 = System.nanoTime(); long hash = 0;
          try (Statement s = conns[v].createStatement(); ResultSet rs = s.executeQuery(sql)) {
            int n = rs.getMetaData().getColumnCount();
            while (rs.next()) for (int i = 1; i <= n; i++) hash = hash * 31 + String.valueOf(rs.getObject(i)).hashCode();
          }
          if (r >= 0) t[v][r] = (System.nanoTime() - t0) / 1e6;
          h[v] = hash;
        }
      }
      for (int v = 0; v < 2; v++) {
        double[] s = t[v].clone(); Arrays.sort(s);
        System.out.printf(Locale.ROOT, "Q%-4s %-8s %10.1f %10.1f %10.1f  %s%n", q, labels[v], s[runs / 2], s[0], s[runs - 1], h[0] == h[1] ? "same rows" : "ROWS DIFFER");
      }
    }
  }
}
