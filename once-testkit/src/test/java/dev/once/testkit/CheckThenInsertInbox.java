package dev.once.testkit;

import dev.once.internal.PostgresDialect;
import dev.once.test.TestDatabase;

/**
 * A deliberately broken inbox for the tests that must catch one: look for the marker, insert it if
 * absent, no unique key. The check reads a snapshot taken when the statement starts; the pause
 * stands for the time between a separate SELECT and INSERT in application code, so workers that
 * start together all pass it.
 */
public final class CheckThenInsertInbox extends PostgresDialect {

  /** The dialect, after creating its table (without a unique key) in {@code db}. */
  public static CheckThenInsertInbox in(TestDatabase db) {
    db.execute("CREATE TABLE broken_inbox (consumer_id text, event_id text)");
    return new CheckThenInsertInbox();
  }

  private CheckThenInsertInbox() {}

  @Override
  public String insertMarkers() {
    return """
        WITH v AS (SELECT ?::text AS consumer_id, unnest(?::text[]) AS event_id),
             pause AS (SELECT pg_sleep(0.3))
        INSERT INTO broken_inbox
        SELECT v.consumer_id, v.event_id FROM v, pause
         WHERE NOT EXISTS (SELECT 1 FROM broken_inbox b
                            WHERE b.consumer_id = v.consumer_id AND b.event_id = v.event_id)
        RETURNING event_id
        """;
  }

  @Override
  public String deleteMarker() {
    return "DELETE FROM broken_inbox WHERE consumer_id = ? AND event_id = ?";
  }
}
