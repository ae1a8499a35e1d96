package dev.once.internal.postgres;

import dev.once.Event;
import dev.once.jdbc.FailedAttempt;
import dev.once.jdbc.JdbcDeadLetters;
import dev.once.jdbc.SqlHeaders;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;

/** Dead letters on PostgreSQL: the standard part, with a dead letter written in one upsert. */
public class PostgresDeadLetters extends JdbcDeadLetters {

  public PostgresDeadLetters(PostgresFlavour flavour) {
    super(flavour);
  }

  /** Inserted, or a resolved one reopened; an open one stays as it is (the WHERE). */
  @Override
  public boolean insertDeadLetter(Connection c, Event event, FailedAttempt f, Instant deadAt)
      throws SQLException {
    return sql.update(
            c,
            """
            INSERT INTO once_dead_letter AS d
                   (consumer_id, event_id, destination, event_key, event_type, payload, headers,
                    trace, attempts, first_failed_at, last_failed_at, error_class, error_fingerprint,
                    error_message, final_attempt_crashed, dead_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (consumer_id, event_id) DO UPDATE
               SET status = 'dead', resolved_at = NULL, dead_at = EXCLUDED.dead_at,
                   payload = EXCLUDED.payload, headers = EXCLUDED.headers,
                   trace = EXCLUDED.trace,
                   attempts = EXCLUDED.attempts, first_failed_at = EXCLUDED.first_failed_at,
                   last_failed_at = EXCLUDED.last_failed_at, error_class = EXCLUDED.error_class,
                   error_fingerprint = EXCLUDED.error_fingerprint,
                   error_message = EXCLUDED.error_message,
                   final_attempt_crashed = EXCLUDED.final_attempt_crashed
             WHERE d.status <> 'dead'
            """,
            f.consumerId(),
            event.id().value(),
            event.destination(),
            event.key(),
            event.type(),
            event.payload(),
            SqlHeaders.of(event.headers()),
            f.attempts(),
            f.firstFailedAt(),
            f.lastFailedAt(),
            f.errorClass(),
            f.fingerprint(),
            f.message(),
            f.finalAttemptCrashed(),
            deadAt)
        == 1;
  }
}
