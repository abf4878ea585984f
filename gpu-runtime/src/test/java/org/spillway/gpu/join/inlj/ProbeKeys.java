package org.spillway.gpu.join.inlj;

import java.util.SplittableRandom;
import java.util.stream.LongStream;

/** Probe keys for the index join tests: duplicates, neighbours of build keys, type extremes, random keys, NULLs. */
final class ProbeKeys {
  static final long[] EXTREMES = {Long.MIN_VALUE, Long.MIN_VALUE + 1, -1, 0, 1, Long.MAX_VALUE - 1, Long.MAX_VALUE};

  private ProbeKeys() {
  }

  /** Build keys, each 0 to 3 times, their neighbours, the type's extremes and random keys, shuffled. */
  static long[] around(long[] build, int count, SplittableRandom random) {
    LongStream.Builder keys = LongStream.builder();
    LongStream.of(EXTREMES).forEach(keys);
    for (int i = 0; i < count; i++) {
      long key = build[random.nextInt(build.length)];
      switch (random.nextInt(4)) {
        case 0 -> keys.add(key).add(key);
        case 1 -> keys.add(key);
        case 2 -> keys.add(key + 1).add(key - 1);
        default -> keys.add(random.nextLong());
      }
    }
    long[] probe = keys.build().toArray();
    for (int i = probe.length - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      long swap = probe[i];
      probe[i] = probe[j];
      probe[j] = swap;
    }
    return probe;
  }

  static boolean[] nulls(int count, SplittableRandom random) {
    boolean[] nulls = new boolean[count];
    for (int i = 0; i < count; i++) {
      nulls[i] = random.nextInt(10) == 0;
    }
    return nulls;
  }
}
