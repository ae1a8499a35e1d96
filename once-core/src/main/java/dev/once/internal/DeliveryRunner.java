package dev.once.internal;

import dev.once.ConsumerConfig;
import dev.once.Outcome;
import dev.once.ReceivedEvent;
import dev.once.RetryPolicy;
import dev.once.spi.Delivery;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one delivery inside the batch transaction: marker, handler, and the retry decision. An event
 * whose attempts are used up is dead-lettered in the same transaction instead of handled, and its
 * marker rolled back, so a replay can process it later.
 */
final class DeliveryRunner {
  private static final Logger log = LoggerFactory.getLogger(DeliveryRunner.class);

  private final OnceImpl once;
  private final ConsumerConfig config;
  private final RetryPolicy policy;
  private final Attempts attempts;
  private final DeadLetterWriter deadLetters;

  DeliveryRunner(OnceImpl once, ConsumerConfig config, Attempts attempts) {
    this.once = once;
    this.config = config;
    this.policy = config.retry();
    this.attempts = attempts;
    this.deadLetters = new DeadLetterWriter(once.dialect());
  }

  HandledDelivery run(
      Connection c, Delivery d, ReceivedEvent event, Attempts.Known known, boolean savepoints)
      throws SQLException {
    Savepoint sp = savepoints ? c.setSavepoint() : null;
    int attempt = Math.max(d.deliveryCount(), known == null ? 1 : known.attempts() + 1);
    if (!insertMarker(c, event)) {
      clearKnown(c, event, known);
      release(c, sp);
      return new HandledDelivery(d, event, Outcome.DUPLICATE, attempt, null);
    }
    if (attempt > policy.maxAttempts()) {
      rollback(c, sp);
      Failure failure = Failure.exhausted(attempt - 1);
      deadLetter(c, event, attempt - 1, known, failure);
      return new HandledDelivery(d, event, Outcome.DEAD, attempt - 1, failure);
    }
    once.listener().markerInserted(event);
    TxImpl tx = once.newTx(c);
    try {
      config.handler().handle(tx, event);
    } catch (Exception e) {
      rollback(c, sp);
      once.listener().handlerFailed(event, e);
      return failed(c, d, event, attempt, known, Failure.of(e, event.event().payload()), e);
    }
    once.listener().handled(event);
    clearKnown(c, event, known);
    release(c, sp);
    Outcome outcome = tx.isStale() ? Outcome.STALE : Outcome.PROCESSED;
    return new HandledDelivery(d, event, outcome, attempt, null, tx.published().size());
  }

  private HandledDelivery failed(
      Connection c,
      Delivery d,
      ReceivedEvent event,
      int attempt,
      Attempts.Known known,
      Failure failure,
      Exception error)
      throws SQLException {
    if (attempt >= policy.maxAttempts() || policy.isNonRetryable(error)) {
      deadLetter(c, event, attempt, known, failure);
      return new HandledDelivery(d, event, Outcome.DEAD, attempt, failure);
    }
    return new HandledDelivery(d, event, Outcome.RETRY, attempt, failure);
  }

  private void deadLetter(
      Connection c, ReceivedEvent event, int attempts, Attempts.Known known, Failure failure)
      throws SQLException {
    Instant now = once.config().clock().instant();
    Instant first = known == null ? now : known.firstFailedAt();
    boolean written =
        deadLetters.write(c, config.consumerId(), event.event(), attempts, first, failure, now);
    clearKnown(c, event, known);
    if (written) {
      log.warn(
          "consumer {} dead-lettered event {} after {} attempts: {} (fingerprint {})",
          config.consumerId(),
          event.id(),
          attempts,
          failure.errorClass(),
          failure.fingerprint());
    }
  }

  private void clearKnown(Connection c, ReceivedEvent event, Attempts.Known known)
      throws SQLException {
    if (known != null) {
      attempts.clear(c, event.id().value());
    }
  }

  private boolean insertMarker(Connection c, ReceivedEvent event) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(once.dialect().insertMarker())) {
      ps.setString(1, config.consumerId());
      ps.setString(2, event.id().value());
      return ps.executeUpdate() == 1;
    }
  }

  private static void rollback(Connection c, Savepoint sp) throws SQLException {
    if (sp != null) {
      c.rollback(sp);
    } else {
      c.rollback();
    }
  }

  private static void release(Connection c, Savepoint sp) throws SQLException {
    if (sp != null) {
      c.releaseSavepoint(sp);
    }
  }
}
