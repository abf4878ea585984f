package org.spillway.adapter.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class AdmissionControlTest {
  @Test
  void excessCallerIsRefusedAfterWaitingWithAClearMessage() throws Exception {
    final AdmissionControl admission = new AdmissionControl(2, Duration.ofMillis(200));
    try (AdmissionControl.Permit first = admission.acquire();
        AdmissionControl.Permit second = admission.acquire()) {
      assertEquals(2, admission.inUse());
      final long start = System.nanoTime();
      final SQLException e = assertThrows(SQLException.class, admission::acquire);
      final long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      assertTrue(waitedMillis >= 150, "refused only after waiting, waited " + waitedMillis + " ms");
      assertEquals(AdmissionControl.BUSY_SQLSTATE, e.getSQLState());
      assertTrue(e.getMessage().contains("--max-concurrent 2"), e.getMessage());
      assertTrue(e.getMessage().contains("200 ms"), e.getMessage());
    }
    assertEquals(0, admission.inUse());
  }

  @Test
  void waiterGetsTheSlotWhenItIsReleased() throws Exception {
    final AdmissionControl admission = new AdmissionControl(1, Duration.ofSeconds(10));
    final AdmissionControl.Permit held = admission.acquire();
    final CompletableFuture<AdmissionControl.Permit> waiter =
        CompletableFuture.supplyAsync(() -> {
          try {
            return admission.acquire();
          } catch (SQLException e) {
            throw new IllegalStateException(e);
          }
        });
    Thread.sleep(100);
    assertTrue(!waiter.isDone(), "second caller must wait while the only slot is held");
    held.close();
    waiter.get(5, TimeUnit.SECONDS).close();
    assertEquals(0, admission.inUse());
  }

  @Test
  void closingAPermitTwiceReleasesItOnce() throws Exception {
    final AdmissionControl admission = new AdmissionControl(1, Duration.ZERO);
    final AdmissionControl.Permit permit = admission.acquire();
    permit.close();
    permit.close();
    try (AdmissionControl.Permit again = admission.acquire()) {
      assertThrows(SQLException.class, admission::acquire, "a double close must not add a permit");
    }
  }

  @Test
  void rejectsNonsenseLimits() {
    assertThrows(IllegalArgumentException.class, () -> new AdmissionControl(0, Duration.ZERO));
    assertThrows(IllegalArgumentException.class,
        () -> new AdmissionControl(1, Duration.ofMillis(-1)));
  }
}
