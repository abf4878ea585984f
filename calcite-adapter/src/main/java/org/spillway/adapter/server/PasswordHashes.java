package org.spillway.adapter.server;

import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;

/**
 * Salted password hashes for the users file: PBKDF2 with HMAC-SHA256 from the JDK (no dependency),
 * written as {@code PBKDF2:sha256:<iterations>:<salt>:<hash>} with both byte strings in Base64.
 *
 * <p>The iteration count travels in the hash, so hashes written with another count keep working.
 */
public final class PasswordHashes {
  /** The prefix that marks a hashed credential in the users file. */
  public static final String PREFIX = "PBKDF2:sha256:";

  /** OWASP's 2023 recommendation for PBKDF2-HMAC-SHA256. */
  public static final int DEFAULT_ITERATIONS = 600_000;

  private static final String ALGORITHM = "PBKDF2WithHmacSHA256";
  private static final int SALT_BYTES = 16;
  private static final int HASH_BITS = 256;
  private static final SecureRandom RANDOM = new SecureRandom();

  private PasswordHashes() {}

  /** A fresh salted hash of {@code password} with {@link #DEFAULT_ITERATIONS}. */
  public static String hash(char[] password) {
    return hash(password, DEFAULT_ITERATIONS);
  }

  /** A fresh salted hash of {@code password}; fewer iterations only for tests. */
  static String hash(char[] password, int iterations) {
    if (iterations < 1) {
      throw new IllegalArgumentException("iterations must be >= 1, got " + iterations);
    }
    final byte[] salt = new byte[SALT_BYTES];
    RANDOM.nextBytes(salt);
    final Base64.Encoder base64 = Base64.getEncoder();
    return PREFIX + iterations + ":" + base64.encodeToString(salt) + ":"
        + base64.encodeToString(derive(password, salt, iterations, HASH_BITS));
  }

  /** Whether {@code credential} is written in this class's format (it may still be malformed). */
  public static boolean isHash(String credential) {
    return credential.startsWith(PREFIX);
  }

  /**
   * Whether {@code password} matches {@code hash}; the comparison takes the same time wherever the
   * bytes differ.
   *
   * @throws IllegalArgumentException if {@code hash} is not a well-formed hash of this format
   */
  public static boolean matches(char[] password, String hash) {
    final Parsed parsed = parse(hash);
    return MessageDigest.isEqual(parsed.hash,
        derive(password, parsed.salt, parsed.iterations, parsed.hash.length * 8));
  }

  /** Checks the format of {@code hash}; used at start-up so a damaged line fails early. */
  static void requireWellFormed(String hash) {
    parse(hash);
  }

  private record Parsed(int iterations, byte[] salt, byte[] hash) {}

  private static Parsed parse(String text) {
    if (!isHash(text)) {
      throw new IllegalArgumentException("not a " + PREFIX + " hash");
    }
    final String[] parts = text.substring(PREFIX.length()).split(":", -1);
    if (parts.length != 3) {
      throw new IllegalArgumentException("expected " + PREFIX + "<iterations>:<salt>:<hash>");
    }
    try {
      final int iterations = Integer.parseInt(parts[0]);
      final Base64.Decoder base64 = Base64.getDecoder();
      final byte[] salt = base64.decode(parts[1]);
      final byte[] hash = base64.decode(parts[2]);
      if (iterations < 1 || salt.length == 0 || hash.length == 0) {
        throw new IllegalArgumentException("iterations, salt and hash must not be empty");
      }
      return new Parsed(iterations, salt, hash);
    } catch (IllegalArgumentException e) {  // NumberFormatException is one
      throw new IllegalArgumentException("malformed " + PREFIX + " hash: " + e.getMessage(), e);
    }
  }

  private static byte[] derive(char[] password, byte[] salt, int iterations, int bits) {
    final PBEKeySpec spec = new PBEKeySpec(password, salt, iterations, bits);
    try {
      return SecretKeyFactory.getInstance(ALGORITHM).generateSecret(spec).getEncoded();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(ALGORITHM + " is missing from this JDK", e);
    } finally {
      spec.clearPassword();
    }
  }

  /** Overwrites a password copy once it is no longer needed. */
  static void wipe(char[] password) {
    Arrays.fill(password, '\0');
  }
}
