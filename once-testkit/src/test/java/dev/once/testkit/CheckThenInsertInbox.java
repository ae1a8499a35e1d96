package dev.once.testkit;

import dev.once.jdbc.Dialect;
import dev.once.jdbc.JdbcDialect;
import dev.once.jdbc.JdbcStore;
import dev.once.jdbc.SqlFlavour;
import dev.once.jdbc.TransactionWaits;
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
 * absent, no unique key. Between the look and the insert each worker waits until {@link #PARTIES}
 * workers have looked (or {@link #MEET_MILLIS} passed): that stands for the time between a separate
 * SELECT and INSERT in application code, and makes the race the tests must catch happen on a loaded
 * machine too, where a fixed pause let the workers miss each other.
 */
public final class CheckThenInsertInbox extends JdbcStore {
  /** The workers the concurrency tests start together. */
  static final int PARTIES = 8;

  private static final long MEET_MILLIS = 5_000;

  private final Object lock = new Object();
  private int looked;

  /** The database's dialect with this inbox, after creating its table (no unique key) in it. */
  public static Dialect in(TestDatabase db) {
    db.execute("CREATE TABLE broken_inbox (consumer_id varchar(200), event_id varchar(200))");
    JdbcDialect dialect = (JdbcDialect) db.dialect();
    return dialect.withStore(new CheckThenInsertInbox(dialect.flavour()));
  }

  private CheckThenInsertInbox(SqlFlavour flavour) {
    super(flavour);
  }

  @Override
  public Set<String> insertMarkers(
      Connection c, TransactionWaits waits, String consumerId, List<String> eventIds)
      throws SQLException {
    Set<String> absent = new HashSet<>();
    for (String eventId : eventIds) {
      try (PreparedStatement check =
          c.prepareStatement(
              "SELECT count(*) FROM broken_inbox WHERE consumer_id = ? AND event_id = ?")) {
        check.setString(1, consumerId);
        check.setString(2, eventId);
        try (ResultSet rs = check.executeQuery()) {
          rs.next();
          if (rs.getLong(1) == 0) {
            absent.add(eventId);
          }
        }
      }
    }
    meetTheOthers();
    for (String eventId : absent) {
      try (PreparedStatement insert =
          c.prepareStatement("INSERT INTO broken_inbox VALUES (?, ?)")) {
        insert.setString(1, consumerId);
        insert.setString(2, eventId);
        insert.executeUpdate();
      }
    }
    return absent;
  }

  private void meetTheOthers() {
    long until = System.currentTimeMillis() + MEET_MILLIS;
    synchronized (lock) {
      looked++;
      lock.notifyAll();
      try {
        for (long left = MEET_MILLIS; looked < PARTIES && left > 0; ) {
          lock.wait(left);
          left = until - System.currentTimeMillis();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
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
