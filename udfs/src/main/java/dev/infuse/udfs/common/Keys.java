package dev.infuse.udfs.common;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Stable keys derived from content and configuration. Parts are joined with a unit separator so
 * that ("ab", "c") and ("a", "bc") never collide.
 */
public final class Keys {
  private static final char SEPARATOR = '\u001f';

  private Keys() {}

  /** Full SHA-256 of the parts, as 64 lowercase hex characters. */
  public static String sha256Hex(String... parts) {
    StringBuilder joined = new StringBuilder();
    for (int i = 0; i < parts.length; i++) {
      if (i > 0) {
        joined.append(SEPARATOR);
      }
      joined.append(parts[i] == null ? "\u0000" : parts[i]);
    }
    return HexFormat.of().formatHex(sha256(joined.toString().getBytes(StandardCharsets.UTF_8)));
  }

  /**
   * The first 16 hex characters (64 bits) of {@link #sha256Hex}: enough for row keys within a
   * table.
   */
  public static String shortHash(String... parts) {
    return sha256Hex(parts).substring(0, 16);
  }

  public static byte[] sha256(byte[] bytes) {
    return newSha256().digest(bytes);
  }

  /** A fresh SHA-256 digest, for hashing data too large to join into one array. */
  public static MessageDigest newSha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every JVM", e);
    }
  }
}
