package dev.once.internal.postgres;

import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/**
 * An instant bound as the text of a {@code timestamptz}, for the statements that bind one often
 * (the table queue's claim) and whose SQL stays as it is.
 */
final class TimestamptzText {
  private TimestamptzText() {}

  /**
   * Binds {@code instant} as the text of a {@code timestamptz} with no type of its own ({@code
   * Types.OTHER}), for a parameter the server types from its place (compared with, or assigned to,
   * a {@code timestamptz} column): pgjdbc then builds no TimestampUtils and no GregorianCalendar
   * for the statement, which {@link PostgresFlavour#bindInstant} makes it do, and the SQL stays as
   * it is. The text is the instant rounded to the microsecond half up, as pgjdbc rounds one. An
   * instant outside the years 1–9999 is bound as {@link PostgresFlavour#bindInstant} binds it.
   */
  static void bind(PreparedStatement ps, int index, Instant instant) throws SQLException {
    String text = of(instant);
    if (text == null) {
      ps.setObject(index, OffsetDateTime.ofInstant(instant, ZoneOffset.UTC));
    } else {
      ps.setObject(index, text, Types.OTHER);
    }
  }

  private static final byte[] TIMESTAMPTZ =
      "0000-00-00 00:00:00.000000+00".getBytes(StandardCharsets.ISO_8859_1);
  private static final long FIRST_SECOND = -62_135_596_800L; // 0001-01-01T00:00:00Z
  private static final long LAST_SECOND = 253_402_300_799L; // 9999-12-31T23:59:59Z

  /**
   * {@code yyyy-MM-dd HH:mm:ss.ffffff+00} of {@code instant} rounded to the microsecond half up, or
   * null outside the years 1–9999.
   */
  static String of(Instant instant) {
    long second = instant.getEpochSecond();
    int micro = (instant.getNano() + 500) / 1000;
    if (micro == 1_000_000) {
      second++;
      micro = 0;
    }
    if (second < FIRST_SECOND || second > LAST_SECOND) {
      return null;
    }
    LocalDate date = LocalDate.ofEpochDay(Math.floorDiv(second, 86_400L));
    int inDay = (int) Math.floorMod(second, 86_400L);
    byte[] text = TIMESTAMPTZ.clone();
    digits(text, 0, 4, date.getYear());
    digits(text, 5, 2, date.getMonthValue());
    digits(text, 8, 2, date.getDayOfMonth());
    digits(text, 11, 2, inDay / 3600);
    digits(text, 14, 2, inDay / 60 % 60);
    digits(text, 17, 2, inDay % 60);
    digits(text, 20, 6, micro);
    return new String(text, StandardCharsets.ISO_8859_1);
  }

  /** Writes {@code value} in {@code width} decimal digits at {@code at}. */
  private static void digits(byte[] text, int at, int width, int value) {
    for (int i = at + width - 1; i >= at; i--) {
      text[i] = (byte) ('0' + value % 10);
      value /= 10;
    }
  }
}
