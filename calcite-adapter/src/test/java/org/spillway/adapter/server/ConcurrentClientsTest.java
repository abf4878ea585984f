package org.spillway.adapter.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.DriverManager;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.spillway.storage.StorageAllocator;
import org.spillway.tpch.TpchQueries;

/** Sixteen remote clients run mixed TPC-H queries for a bounded time: all correct, nothing leaked. */
class ConcurrentClientsTest {
  static final int CLIENTS = 16;
  /** Long enough for every client to run each query of the mix; -Dspillway.server.loadSeconds=N. */
  static final long RUN_SECONDS = Long.getLong("spillway.server.loadSeconds", 20);

  @Test
  void sixteenClientsGetCorrectResultsAndLeaveNoMemoryBehind() throws Exception {
    final int[] mix = RemoteQueryTest.QUERIES;
    final Map<Integer, ResultRows> expected = new HashMap<>();
    try (Connection embedded = TpchTestData.embedded()) {
      for (int q : mix) {
        expected.put(q, ResultRows.query(embedded, TpchQueries.sql(q)));
      }
    }
    // Tables load lazily on first use and then stay for the life of the catalog; the run above
    // loaded every table the mix touches, so from here on memory must come back to this value.
    final long baseline = StorageAllocator.root().getAllocatedMemory();
    assertTrue(baseline > 0, "the catalog's tables live in Arrow memory, so the check below has teeth");

    final SpillwayServer server =
        SpillwayServer.start(ServerConfig.of(TpchTestData.dataDir()).withPort(0));
    final ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
    final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(RUN_SECONDS);
    final List<Future<Integer>> results = new ArrayList<>();
    try {
      for (int c = 0; c < CLIENTS; c++) {
        final int client = c;
        results.add(clients.submit(() -> {
          int done = 0;
          try (Connection remote = DriverManager.getConnection(server.jdbcUrl())) {
            // Each client starts at a different query so that the mix is mixed at every moment.
            for (int i = client; done == 0 || System.nanoTime() < deadline; i++) {
              final int q = mix[i % mix.length];
              ResultRows.assertSameResult(expected.get(q),
                  ResultRows.query(remote, TpchQueries.sql(q)), "client " + client + " Q" + q);
              done++;
            }
          }
          return done;
        }));
      }
      int total = 0;
      for (Future<Integer> result : results) {
        // get() rethrows the first assertion failure or SQLException of that client.
        total += result.get(RUN_SECONDS + 120, TimeUnit.SECONDS);
      }
      assertTrue(total >= CLIENTS, "every client finished at least one query, total " + total);
      assertEquals(total, server.meta().finishedQueries(), "one log entry per query");
      System.out.printf("%d clients ran %d queries in %d s%n", CLIENTS, total, RUN_SECONDS);
    } finally {
      clients.shutdownNow();
      server.close();
    }
    assertEquals(0, server.meta().openQueries(), "queries still open on the server");
    assertEquals(0, server.admission().inUse(), "admission permits still held");
    assertEquals(baseline, StorageAllocator.root().getAllocatedMemory(),
        "Arrow memory allocated after the run differs from before it");
  }
}
