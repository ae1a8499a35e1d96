package dev.once.jdbc;

import dev.once.Event;
import dev.once.EventId;
import dev.once.spi.RawMessage;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BiConsumer;

/** Reading the columns outbox, queue and dead-letter rows share. */
public final class JdbcRows {
  private JdbcRows() {}

  /**
   * What an outbox or queue row holds, undecoded: a row written by hand, by another service or by
   * an older version may hold anything, and must not stop the rows around it. Repeated headers are
   * kept as they came.
   */
  public static RawMessage raw(SqlFlavour flavour, ResultSet rs) throws SQLException {
    Read read = new Read();
    flavour.readHeaders(rs, "headers", read);
    return read.headers == null ? columns(rs) : columns(read.headers, rs);
  }

  /** The row's headers as they are read; null while there are none. */
  private static final class Read implements BiConsumer<String, Object> {
    private RawMessage.Headers headers;

    @Override
    public void accept(String name, Object value) {
      if (headers == null) {
        headers = new RawMessage.Headers();
      }
      headers.add(name, value);
    }
  }

  /**
   * A row without headers (most rows): what {@link #columns(RawMessage.Headers, ResultSet)} gives
   * for no headers, the id and the key as the only two, without a map of headers built to be read
   * once. A relay reads one per row it claims.
   */
  private static RawMessage columns(ResultSet rs) throws SQLException {
    String id = rs.getString("event_id");
    String key = rs.getString("event_key");
    Map<String, Object> headers;
    if (id == null) {
      headers = key == null ? Map.of() : Map.of(RawMessage.KEY, key);
    } else {
      headers =
          key == null
              ? Map.of(RawMessage.EVENT_ID, id)
              : Map.of(RawMessage.EVENT_ID, id, RawMessage.KEY, key);
    }
    return new RawMessage(
        rs.getString("destination"),
        null,
        rs.getString("event_type"),
        headers,
        rs.getBytes("payload"));
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
