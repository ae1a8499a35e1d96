package dev.once.internal;

import dev.once.Event;
import dev.once.EventId;
import dev.once.spi.RawMessage;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * JDBC on MariaDB/MySQL: instants bound and read as UTC {@code DATETIME(6)} values (whatever the
 * JVM's or the server's time zone), headers as URL-encoded text, lists as {@code IN (?, ?, …)}.
 */
final class MariaDbJdbc {
  private MariaDbJdbc() {}

  /** ER_DUP_ENTRY: a unique or primary key already holds the value. */
  static final int DUPLICATE_KEY = 1062;

  /** A parked outbox row's next attempt: never. */
  static final Instant NEVER = Instant.parse("9999-12-31T00:00:00Z");

  static void bind(PreparedStatement ps, Object... params) throws SQLException {
    for (int i = 0; i < params.length; i++) {
      Object p = params[i];
      if (p instanceof Instant instant) {
        ps.setObject(i + 1, LocalDateTime.ofInstant(instant, ZoneOffset.UTC));
      } else if (p instanceof List<?> list) {
        throw new IllegalArgumentException("bind lists with in(): " + list);
      } else if (p == null) {
        ps.setNull(i + 1, Types.NULL);
      } else {
        ps.setObject(i + 1, p);
      }
    }
  }

  static int update(Connection c, String sql, Object... params) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      bind(ps, params);
      return ps.executeUpdate();
    }
  }

  /**
   * Runs an INSERT; false if it failed only because a unique key holds the value already (the
   * statement is rolled back, the transaction goes on). Every other error is thrown.
   */
  static boolean insertUnlessDuplicate(Connection c, String sql, Object... params)
      throws SQLException {
    try {
      return update(c, sql, params) > 0;
    } catch (SQLException e) {
      if (e.getErrorCode() == DUPLICATE_KEY) {
        return false;
      }
      throw e;
    }
  }

  /** {@code ?, ?, ?} for n values. */
  static String in(int n) {
    return String.join(", ", Collections.nCopies(n, "?"));
  }

  /** The parameters {@code head}, then each of {@code list}, then {@code tail}. */
  static Object[] params(List<Object> head, List<?> list, Object... tail) {
    List<Object> all = new ArrayList<>(head);
    all.addAll(list);
    all.addAll(List.of(tail));
    return all.toArray();
  }

  static Instant instant(ResultSet rs, String column) throws SQLException {
    LocalDateTime t = rs.getObject(column, LocalDateTime.class);
    return t == null ? null : t.toInstant(ZoneOffset.UTC);
  }

  static String headers(Map<String, String> headers) {
    StringBuilder s = new StringBuilder();
    for (Map.Entry<String, String> h : headers.entrySet()) {
      if (s.length() > 0) {
        s.append('&');
      }
      s.append(URLEncoder.encode(h.getKey(), StandardCharsets.UTF_8))
          .append('=')
          .append(URLEncoder.encode(h.getValue(), StandardCharsets.UTF_8));
    }
    return s.toString();
  }

  /** Headers from their text; lenient (a pair without '=' has a null value), never throws. */
  static Map<String, String> headers(String text) {
    Map<String, String> headers = new LinkedHashMap<>();
    pairs(text, headers::put);
    return headers;
  }

  /** Each name and value of the text, in order, a repeated name too. */
  private static void pairs(String text, BiConsumer<String, String> each) {
    if (text == null || text.isEmpty()) {
      return;
    }
    for (String pair : text.split("&")) {
      int eq = pair.indexOf('=');
      each.accept(
          decode(eq < 0 ? pair : pair.substring(0, eq)),
          eq < 0 ? null : decode(pair.substring(eq + 1)));
    }
  }

  private static String decode(String text) {
    try {
      return URLDecoder.decode(text, StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      return text; // not URL-encoded by Once: kept as it is, the decoder judges it
    }
  }

  /** Reads a dead letter's event (written by Once, so well formed). */
  static Event event(ResultSet rs) throws SQLException {
    return new Event(
        new EventId(rs.getString("event_id")),
        rs.getString("destination"),
        rs.getString("event_key"),
        rs.getString("event_type"),
        rs.getBytes("payload"),
        headers(rs.getString("headers")));
  }

  /** What an outbox or queue row holds, undecoded: it may have been written by anyone. */
  static RawMessage raw(ResultSet rs) throws SQLException {
    RawMessage.Headers headers = new RawMessage.Headers();
    pairs(rs.getString("headers"), headers::add);
    return Jdbc.columns(headers, rs);
  }
}
