package dev.once.testkit;

import dev.once.jdbc.JdbcDialect;
import dev.once.jdbc.JdbcStore;
import dev.once.spi.Dialect;
import dev.once.spi.SqlFlavour;
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
public final class CheckThenInsertInbox extends JdbcStore {

  /** The database's dialect with this inbox, after creating its table (no unique key) in it. */
  public static Dialect in(TestDatabase db) {
    db.execute("CREATE TABLE broken_inbox (consumer_id varchar(200), event_id varchar(200))");
    JdbcDialect dialect = (JdbcDialect) db.dialect();
    return dialect.withStore(
        db.isMariaDb()
            ? new OnMariaDb(dialect.flavour())
            : new CheckThenInsertInbox(dialect.flavour()));
  }

  /** The same on MariaDB: per event a read of the marker, the pause, an insert if it was absent. */
  private static final class OnMariaDb extends JdbcStore {
    OnMariaDb(SqlFlavour flavour) {
      super(flavour);
    }

    @Override
    public Set<String> insertMarkers(Connection c, String consumerId, List<String> eventIds)
        throws SQLException {
      Set<String> inserted = new HashSet<>();
      for (String eventId : eventIds) {
        try (PreparedStatement check =
            c.prepareStatement(
                """
                SELECT count(*) FROM broken_inbox, (SELECT SLEEP(0.3) AS pause) p
                 WHERE consumer_id = ? AND event_id = ?
                """)) {
          check.setString(1, consumerId);
          check.setString(2, eventId);
          try (ResultSet rs = check.executeQuery()) {
            rs.next();
            if (rs.getLong(1) > 0) {
              continue;
            }
          }
        }
        try (PreparedStatement insert =
            c.prepareStatement("INSERT INTO broken_inbox VALUES (?, ?)")) {
          insert.setString(1, consumerId);
          insert.setString(2, eventId);
          insert.executeUpdate();
          inserted.add(eventId);
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

  private CheckThenInsertInbox(SqlFlavour flavour) {
    super(flavour);
  }

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
