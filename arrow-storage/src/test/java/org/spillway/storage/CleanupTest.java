package org.spillway.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CleanupTest {
  private final List<String> ran = new ArrayList<>();

  private Runnable step(String name, RuntimeException failure) {
    return () -> {
      ran.add(name);
      if (failure != null) {
        throw failure;
      }
    };
  }

  @Test
  void theReportedFailureStaysWithTheStepsFailuresSuppressed() {
    RuntimeException original = new RuntimeException("no space left on device");
    RuntimeException lock = new RuntimeException("cannot delete lock");
    RuntimeException delete = new RuntimeException("cannot delete directory");
    RuntimeException thrown = assertThrows(RuntimeException.class, () ->
        Cleanup.runAll(original, step("lock", lock), step("delete", delete), step("free", null)));
    assertSame(original, thrown);
    assertArrayEquals(new Throwable[] {lock, delete}, thrown.getSuppressed());
    assertEquals(List.of("lock", "delete", "free"), ran, "every step ran");
  }

  @Test
  void withoutAReportedFailureTheFirstStepFailureIsThrown() {
    RuntimeException first = new RuntimeException("first");
    RuntimeException second = new RuntimeException("second");
    RuntimeException thrown = assertThrows(RuntimeException.class, () ->
        Cleanup.runAll(null, step("a", null), step("b", first), step("c", second)));
    assertSame(first, thrown);
    assertArrayEquals(new Throwable[] {second}, thrown.getSuppressed());
    assertEquals(List.of("a", "b", "c"), ran);
  }

  @Test
  void aStepRethrowingTheReportedFailureDoesNotSuppressItInItself() {
    RuntimeException original = new RuntimeException("original");
    assertSame(original, assertThrows(RuntimeException.class, () -> Cleanup.runAll(original, step("a", original))));
    assertEquals(0, original.getSuppressed().length);
  }

  @Test
  void stepsThatSucceedThrowNothing() {
    Cleanup.runAll(null, step("a", null), step("b", null));
    assertEquals(List.of("a", "b"), ran);
  }
}
