package dev.once.app.ops;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import javax.sql.DataSource;

/**
 * The consumers and destinations the Once tables of a namespace record: consumers from their
 * markers, retries, suspects, dead letters and table-queue bindings; destinations from the outbox,
 * the dead letters and the bindings. Where a broker keeps no list of its own that Once can read
 * (RabbitMQ over AMQP), these are what an admin command asks it about. Cheap on big tables: the
 * markers are walked by their key, one step per consumer; the outbox and the dead letters are read
 * in their newest {@value #RECENT} rows.
 *
 * @param consumers consumer ids, the relay's {@code (relay)} left out
 */
record RecordedGroups(Set<String> consumers, Set<String> destinations) {
  static final int RECENT = 100_000;

  private static final String RELAY = "(relay)";

  static RecordedGroups read(DataSource dataSource) {
    Set<String> consumers = new TreeSet<>();
    Set<String> destinations = new TreeSet<>();
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      for (String sql :
          List.of(
              """
              WITH RECURSIVE walk (id) AS (
                SELECT min(consumer_id) FROM once_inbox
                UNION ALL
                SELECT (SELECT min(i.consumer_id) FROM once_inbox i WHERE i.consumer_id > walk.id)
                  FROM walk WHERE walk.id IS NOT NULL)
              SELECT id FROM walk WHERE id IS NOT NULL
              """,
              "SELECT DISTINCT consumer_id FROM once_attempt",
              "SELECT DISTINCT consumer_id FROM once_suspect",
              "SELECT DISTINCT consumer_group FROM once_queue_binding",
              "SELECT DISTINCT consumer_id FROM once_dead_letter")) {
        read(s, sql, consumers);
      }
      for (String sql :
          List.of(
              "SELECT DISTINCT destination FROM once_queue_binding",
              recent("once_outbox"),
              recent("once_dead_letter"))) {
        read(s, sql, destinations);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(
          "could not read the consumers and destinations the Once tables record: " + e.getMessage(),
          e);
    }
    consumers.remove(RELAY);
    return new RecordedGroups(consumers, destinations);
  }

  private static String recent(String table) {
    return "SELECT DISTINCT destination FROM (SELECT destination FROM "
        + table
        + " ORDER BY id DESC LIMIT "
        + RECENT
        + ") recent";
  }

  private static void read(Statement s, String sql, Set<String> into) throws SQLException {
    try (ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        if (rs.getString(1) != null) {
          into.add(rs.getString(1));
        }
      }
    }
  }
}
