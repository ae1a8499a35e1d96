package dev.once.jdbc;

import dev.once.Event;
import dev.once.EventId;
import dev.once.spi.RawMessage;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;

/** Reading the columns outbox, queue and dead-letter rows share. */
public final class JdbcRows {
  private JdbcRows() {}

  /**
   * What an outbox or queue row holds, undecoded: a row written by hand, by another service or by
   * an older version may hold anything, and must not stop the rows around it. Repeated headers are
   * kept as they came.
   */
  public static RawMessage raw(SqlFlavour flavour, ResultSet rs) throws SQLException {
    RawMessage.Headers headers = new RawMessage.Headers();
    flavour.readHeaders(rs, "headers", headers::add);
    return columns(headers, rs);
  }

  /**
   * The row's id, key and type columns beside its headers: a header {@code once-event-id}, {@code
   * once-key} or {@code once-type} in the headers column repeats one of them (Once never writes
   * them there), which makes the row malformed.
   */
  public static RawMessage columns(RawMessage.Headers headers, ResultSet rs) throws SQLException {
    String type = rs.getString("event_type");
    headers
        .field(RawMessage.EVENT_ID, rs.getString("event_id"))
        .field(RawMessage.KEY, rs.getString("event_key"))
        .field(RawMessage.TYPE, type)
        .remove(RawMessage.TYPE); // read as the row's type
    return headers.message(rs.getString("destination"), null, type, rs.getBytes("payload"));
  }

  /** A dead letter's event (written by Once, so well formed; a repeated header: the last). */
  public static Event event(SqlFlavour flavour, ResultSet rs) throws SQLException {
    Map<String, String> headers = new LinkedHashMap<>();
    flavour.readHeaders(
        rs, "headers", (name, value) -> headers.put(name, value == null ? null : value.toString()));
    return new Event(
        new EventId(rs.getString("event_id")),
        rs.getString("destination"),
        rs.getString("event_key"),
        rs.getString("event_type"),
        rs.getBytes("payload"),
        headers);
  }
}
