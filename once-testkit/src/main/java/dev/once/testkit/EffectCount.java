package dev.once.testkit;

import dev.once.EventId;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Counts the business effects an event caused, in the user's own data: the number {@link
 * HandlerKit} expects to be exactly 1 after every crash and every duplicate delivery.
 */
@FunctionalInterface
public interface EffectCount {

  /** Effects of {@code eventId}, read on {@code connection} (a fresh one, auto-commit on). */
  long count(Connection connection, EventId eventId) throws SQLException;

  /**
   * A query returning one number, with the event id as its only parameter, e.g. {@code SELECT
   * count(*) FROM dispatch_jobs WHERE event_id = ?}.
   */
  static EffectCount sql(String query) {
    return (c, id) -> {
      try (PreparedStatement ps = c.prepareStatement(query)) {
        ps.setString(1, id.value());
        try (ResultSet rs = ps.executeQuery()) {
          if (!rs.next()) {
            throw new SQLException("the effect query returned no row: " + query);
          }
          return rs.getLong(1);
        }
      }
    };
  }
}
