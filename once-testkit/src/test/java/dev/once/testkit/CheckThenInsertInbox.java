package dev.once.testkit;

import dev.once.internal.PostgresDialect;
import dev.once.internal.PostgresStore;
import dev.once.spi.Dialect;
import dev.once.test.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A deliberately broken inbox for the tests that must catch one: look for the marker, insert it if
 * absent, no unique key. The check reads a snapshot taken when the statement starts; the pause
 * stands for the time between a separate SELECT and INSERT in application code, so workers that
 * start together all pass it.
 */
public final class CheckThenInsertInbox extends PostgresStore {

  /**
   * The PostgreSQL dialect with this inbox, after creating its table (no unique key) in {@code db}.
   */
  public static Dialect in(TestDatabase db) {
    db.execute("CREATE TABLE broken_inbox (consumer_id text, event_id text)");
    return new PostgresDialect(new CheckThenInsertInbox());
  }

  private CheckThenInsertInbox() {}

  @Override
  public Set<String> insertMarkers(Connection c, String consumerId, List<String> eventIds)
      throws SQLException {
    Set<String> inserted = new HashSet<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            """
            WITH v AS (SELECT ?::text AS consumer_id, unnest(?::text[]) AS event_id),
                 pause AS (SELECT pg_sleep(0.3))
            INSERT INTO broken_inbox
            SELECT v.consumer_id, v.event_id FROM v, pause
             WHERE NOT EXISTS (SELECT 1 FROM broken_inbox b
                                WHERE b.consumer_id = v.consumer_id AND b.event_id = v.event_id)
            RETURNING event_id
            """)) {
      ps.setString(1, consumerId);
      ps.setArray(2, c.createArrayOf("text", eventIds.toArray(new String[0])));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          inserted.add(rs.getString(1));
        }
      }
    }
    return inserted;
  }

  @Override
  public void deleteMarker(Connection c, String consumerId, String eventId) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("DELETE FROM broken_inbox WHERE consumer_id = ? AND event_id = ?")) {
      ps.setString(1, consumerId);
      ps.setString(2, eventId);
      ps.executeUpdate();
    }
  }
}
