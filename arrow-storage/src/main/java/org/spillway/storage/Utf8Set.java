package org.spillway.storage;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;

/**
 * A set of UTF-8 byte strings, looked up by bytes and a caller's 64-bit hash of them: the exact distinct values of a
 * text column while they are few, kept without a String per row (a String is made once per distinct value, and only
 * when {@link #toStrings} asks). Open addressing with linear probing; one thread at a time.
 */
final class Utf8Set {
  private byte[][] keys = new byte[64][];
  private long[] hashes = new long[64];
  private int size;

  int size() {
    return size;
  }

  /**
   * Adds the {@code length} bytes of {@code bytes} from {@code from} on, whose hash is {@code hash}; false if already
   * present.
   */
  boolean add(byte[] bytes, int from, int length, long hash) {
    int mask = keys.length - 1;
    int slot = (int) hash & mask;
    for (byte[] key = keys[slot]; key != null; key = keys[slot]) {
      if (hashes[slot] == hash && Arrays.equals(key, 0, key.length, bytes, from, from + length)) {
        return false;
      }
      slot = (slot + 1) & mask;
    }
    keys[slot] = Arrays.copyOfRange(bytes, from, from + length);
    hashes[slot] = hash;
    if (++size * 2 > keys.length) {
      grow();
    }
    return true;
  }

  /** Adds every value of {@code other}. */
  void addAll(Utf8Set other) {
    for (int i = 0; i < other.keys.length; i++) {
      byte[] key = other.keys[i];
      if (key != null) {
        add(key, 0, key.length, other.hashes[i]);
      }
    }
  }

  /** The values as Strings (the bytes decode as UTF-8; malformed sequences are replaced as decoding does). */
  Set<String> toStrings() {
    Set<String> strings = new HashSet<>(size * 2);
    for (byte[] key : keys) {
      if (key != null) {
        strings.add(new String(key, StandardCharsets.UTF_8));
      }
    }
    return strings;
  }

  private void grow() {
    byte[][] oldKeys = keys;
    long[] oldHashes = hashes;
    keys = new byte[oldKeys.length * 2][];
    hashes = new long[oldKeys.length * 2];
    int mask = keys.length - 1;
    for (int i = 0; i < oldKeys.length; i++) {
      if (oldKeys[i] != null) {
        int slot = (int) oldHashes[i] & mask;
        while (keys[slot] != null) {
          slot = (slot + 1) & mask;
        }
        keys[slot] = oldKeys[i];
        hashes[slot] = oldHashes[i];
      }
    }
  }
}
