package dev.once.internal.relay;

import dev.once.Backoff;
import dev.once.jdbc.Dialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A relay's rows whose destination has no consumer bound yet. Nothing is wrong with such an event,
 * so it waits in the outbox, uncharged (never a dead letter for this), and is published again after
 * as long as it has waited, between the relay's first and longest backoff; the first of a
 * destination's rows to wait says so once, until one of them is published.
 */
final class UnboundDestinations {
  private static final Logger log = LoggerFactory.getLogger(RelayImpl.class);

  private final Dialect dialect;
  private final Backoff backoff;

  /** Destinations said to wait, until one of their rows is published. */
  private final Set<String> said = ConcurrentHashMap.newKeySet();

  UnboundDestinations(Dialect dialect, Backoff backoff) {
    this.dialect = dialect;
    this.backoff = backoff;
  }

  void defer(
      Connection c, long rowId, String destination, Instant createdAt, String reason, Instant now)
      throws SQLException {
    Duration waited = Duration.between(createdAt, now);
    Duration delay = waited.compareTo(backoff.initial()) < 0 ? backoff.initial() : waited;
    delay = delay.compareTo(backoff.max()) > 0 ? backoff.max() : delay;
    dialect.store().deferPublish(c, rowId, reason, now.plus(delay));
    if (said.add(destination)) {
      log.warn(
          "relay: no consumer is bound to destination '{}' ({}): its events wait in the outbox,"
              + " counted as waiting by status, and are published again every {} at most until"
              + " a consumer subscribes; they are not dead-lettered",
          destination,
          reason,
          backoff.max());
    }
  }

  /** A row of the destination was published: a later wait is said again. */
  void published(String destination) {
    said.remove(destination);
  }
}
