package dev.once.internal.postgres;

import dev.once.Tracing;
import java.util.HexFormat;

/**
 * A W3C version-00 {@code traceparent} ({@code 00-<32 hex>-<16 hex>-<2 hex>}, lower case, 55
 * characters) as 26 bytes: version, trace id, parent span id, flags. PostgreSQL stores it so in a
 * {@code bytea} column of its own beside the headers: as an element of the {@code text[]} headers
 * it made each row ~84 bytes larger (array header, name and value, each padded), four rows an order
 * over two hops, and had the driver and the server encode and parse the array on every write and
 * read (docs/PERFORMANCE.md, tracing, round 8).
 */
final class PackedTraceparent {
  /** Bytes of a packed version-00 traceparent. */
  public static final int LENGTH = 26;

  private static final HexFormat HEX = HexFormat.of();

  private PackedTraceparent() {}

  /**
   * {@code tp} in 26 bytes, or null when it is not {@link Tracing#isTraceparent} (it then stays a
   * header).
   */
  public static byte[] pack(String tp) {
    if (!Tracing.isTraceparent(tp)) {
      return null;
    }
    byte[] packed = new byte[LENGTH];
    for (int i = 1, at = 3; i < LENGTH; i++, at += 2) {
      if (at == 35 || at == 52) {
        at++; // the dash between fields
      }
      packed[i] = (byte) HexFormat.fromHexDigits(tp, at, at + 2);
    }
    return packed;
  }

  /**
   * The traceparent that {@link #pack} packed; bytes it did not write (a hand-written row, a later
   * version) come back as their hex digits, which no tracer accepts as a traceparent: passed on as
   * they are, never thrown on.
   */
  public static String unpack(byte[] packed) {
    if (packed.length != LENGTH || packed[0] != 0) {
      return HEX.formatHex(packed);
    }
    StringBuilder tp = new StringBuilder(55).append("00-");
    HEX.formatHex(tp, packed, 1, 17).append('-');
    HEX.formatHex(tp, packed, 17, 25).append('-');
    return HEX.formatHex(tp, packed, 25, 26).toString();
  }
}
