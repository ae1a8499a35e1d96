package dev.once.internal.postgres;

import dev.once.Event;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;

/**
 * A producer's row of an event without headers (most events), bound with typed setters: the outbox
 * row ({@link PostgresStore#insertOutbox}; binding its empty header array was a fifth of the CPU
 * samples of {@code tx.publish}, {@code docs/PERFORMANCE.md}, "Producers alone: the outbox row,
 * measured") and the table queue's copies written in the producer's transaction ({@link
 * PostgresQueue#enqueueUnordered}). Both leave {@code headers} and {@code trace} to their defaults,
 * {@code '{}'} and NULL, what the standard statements bind for no headers. The queue's copy binds
 * its instant as microseconds ({@link PostgresStore#AT}): as a date-time, pgjdbc built a
 * TimestampUtils and a GregorianCalendar for each of its two instants, and the empty header array
 * took an array encoder: about half of the bytes a producer allocated per order on the table queue
 * ({@code docs/PERFORMANCE.md}, "The producer's transaction, as written by hand").
 */
final class HeaderlessRows {
  private HeaderlessRows() {}

  /**
   * (event id, destination, key, type, payload, now, now, destination) → a copy per group bound to
   * the destination unordered; none where a group receives it in key order (the standard
   * statement's condition: such an event goes to the outbox).
   */
  static final String ENQUEUE_UNORDERED =
      """
      INSERT INTO once_queue
             (consumer_group, event_id, destination, event_key, event_type, payload,
              enqueued_at, visible_at, in_key_order, parked)
      SELECT b.consumer_group, ?, ?, ?, ?, ?, %s, %s, FALSE, FALSE
        FROM once_queue_binding b
       WHERE b.destination = ?
         AND NOT EXISTS (SELECT 1 FROM once_queue_binding o
                          WHERE o.destination = b.destination AND o.in_key_order = true)
      """
          .formatted(PostgresStore.AT, PostgresStore.AT);

  /**
   * Writes {@code e}'s outbox row by {@code ps}, prepared from the headerless INSERT; false if its
   * id was there.
   */
  static boolean insertOutbox(PreparedStatement ps, Event e, int partition) throws SQLException {
    bindEvent(ps, e);
    ps.setInt(6, partition);
    return ps.executeUpdate() > 0;
  }

  /** Enqueues {@code e}'s copies; returns how many (one per group). */
  static int enqueueUnordered(Connection c, Event e, Instant now) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(ENQUEUE_UNORDERED)) {
      bindEvent(ps, e);
      long micros = PostgresStore.micros(now);
      ps.setLong(6, micros);
      ps.setLong(7, micros);
      ps.setString(8, e.destination());
      return ps.executeUpdate();
    }
  }

  /** Parameters 1 to 5: id, destination, key, type, payload. */
  private static void bindEvent(PreparedStatement ps, Event e) throws SQLException {
    ps.setString(1, e.id().value());
    ps.setString(2, e.destination());
    if (e.key() == null) {
      ps.setNull(3, Types.NULL);
    } else {
      ps.setString(3, e.key());
    }
    ps.setString(4, e.type());
    ps.setBytes(5, e.payload());
  }
}
