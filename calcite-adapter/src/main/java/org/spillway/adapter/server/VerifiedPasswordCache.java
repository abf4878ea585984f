package org.spillway.adapter.server;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReference;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Remembers the last password that passed a slow check, as an HMAC-SHA256 under a key that lives only
 * in this object, so the password itself is never kept and the digest is useless outside the process.
 */
final class VerifiedPasswordCache {
  private static final String MAC = "HmacSHA256";
  private static final SecureRandom RANDOM = new SecureRandom();

  private final SecretKeySpec key;
  private final AtomicReference<byte[]> lastVerified = new AtomicReference<>();

  VerifiedPasswordCache() {
    final byte[] secret = new byte[32];
    RANDOM.nextBytes(secret);
    key = new SecretKeySpec(secret, MAC);
  }

  boolean contains(char[] password) {
    final byte[] remembered = lastVerified.get();
    return remembered != null && MessageDigest.isEqual(remembered, digest(password));
  }

  void remember(char[] password) {
    lastVerified.set(digest(password));
  }

  private byte[] digest(char[] password) {
    final ByteBuffer utf8 = StandardCharsets.UTF_8.encode(CharBuffer.wrap(password));
    final byte[] bytes = new byte[utf8.remaining()];
    utf8.get(bytes);
    try {
      final Mac mac = Mac.getInstance(MAC);
      mac.init(key);
      return mac.doFinal(bytes);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(MAC + " is missing from this JDK", e);
    } finally {
      Arrays.fill(bytes, (byte) 0);
      if (utf8.hasArray()) {
        Arrays.fill(utf8.array(), (byte) 0);
      }
    }
  }
}
