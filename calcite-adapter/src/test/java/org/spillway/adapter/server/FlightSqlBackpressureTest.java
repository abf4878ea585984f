package org.spillway.adapter.server;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.flight.FlightProducer.ServerStreamListener;
import org.junit.jupiter.api.Test;

/**
 * A Flight SQL stream waits for its client without gRPC's ready callback, which gRPC runs on the thread the stream
 * holds and so never delivers while the stream waits: {@link FlightSqlExecutions#awaitClient} must see the client
 * become ready, cancel or stay away by itself.
 */
class FlightSqlBackpressureTest {
  /**
   * A listener that is not ready for the first {@code notReadyLooks} looks, whose ready and cancel callbacks are
   * never called (as on the stream's own thread).
   */
  private static ServerStreamListener listener(int notReadyLooks, AtomicBoolean cancelled) {
    final AtomicInteger looks = new AtomicInteger();
    return (ServerStreamListener) Proxy.newProxyInstance(ServerStreamListener.class.getClassLoader(),
        new Class<?>[] {ServerStreamListener.class}, (proxy, method, args) -> switch (method.getName()) {
          case "isReady" -> looks.incrementAndGet() > notReadyLooks;
          case "isCancelled" -> cancelled.get();
          case "setOnReadyHandler", "setOnCancelHandler" -> null;
          default -> throw new UnsupportedOperationException(method.getName());
        });
  }

  @Test
  void aClientThatBecomesReadyIsSeenWithoutItsCallback() {
    assertTrue(assertTimeoutPreemptively(Duration.ofSeconds(10),
        () -> FlightSqlExecutions.awaitClient(listener(20, new AtomicBoolean()), 60_000)));
  }

  @Test
  void aCancelledOrAbsentClientEndsTheWait() {
    final AtomicBoolean cancelled = new AtomicBoolean(true);
    assertFalse(assertTimeoutPreemptively(Duration.ofSeconds(10),
        () -> FlightSqlExecutions.awaitClient(listener(Integer.MAX_VALUE, cancelled), 60_000)));
    assertFalse(assertTimeoutPreemptively(Duration.ofSeconds(10),
        () -> FlightSqlExecutions.awaitClient(listener(Integer.MAX_VALUE, new AtomicBoolean()), 100)));
  }
}
