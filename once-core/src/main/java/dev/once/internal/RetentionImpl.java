package dev.once.internal;

import dev.once.Retention;
import dev.once.RetentionPolicy;
import dev.once.StoreException;
import dev.once.spi.AdminDialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The retention janitor. One round: take the schema's retention advisory lock on one session (or
 * skip the round if another instance has it), then delete each kind of old row in batches of {@code
 * batchSize}, every batch in its own auto-committed statement, until a batch comes back short. No
 * statement holds locks for longer than one small batch takes.
 */
final class RetentionImpl implements Retention {
  private static final Logger log = LoggerFactory.getLogger(RetentionImpl.class);

  private final OnceImpl once;
  private final RetentionPolicy policy;
  private final AdminDialect admin;
  private final Clock clock;
  private final EngineThread thread = new EngineThread("once-retention");

  RetentionImpl(OnceImpl once) {
    this.once = once;
    this.policy = once.config().retention();
    this.admin = once.dialect().admin();
    this.clock = once.config().clock();
  }

  @Override
  public Round runOnce() {
    try (Connection c = once.dataSource().getConnection()) {
      c.setAutoCommit(true);
      if (!admin.tryRetentionLock(c)) {
        return new Round(true, 0, 0, 0, 0);
      }
      try {
        Instant now = clock.instant();
        return new Round(
            false,
            drain(c, admin::deleteOldMarkers, now.minus(policy.markers())),
            drain(c, admin::deleteSentOutbox, now.minus(policy.sentOutbox())),
            drain(c, admin::deleteResolvedDeadLetters, now.minus(policy.resolvedDeadLetters())),
            drain(c, admin::deleteOldAttempts, now.minus(policy.markers()))
                + drain(c, admin::deleteOldSuspects, now.minus(policy.markers())));
      } finally {
        admin.retentionUnlock(c);
      }
    } catch (SQLException e) {
      throw new StoreException("retention round", e);
    }
  }

  /** One kind of batched delete: (connection, before, limit) → rows deleted. */
  @FunctionalInterface
  private interface Delete {
    int run(Connection c, Instant before, int limit) throws SQLException;
  }

  private long drain(Connection c, Delete delete, Instant before) throws SQLException {
    long total = 0;
    while (thread.running() || !thread.started()) {
      int n = deleteBatch(c, delete, before);
      total += n;
      if (n < policy.batchSize()) {
        break;
      }
    }
    return total;
  }

  /** How often one batch is tried again after a deadlock or a serialization failure. */
  private static final int TRANSIENT_RETRIES = 10;

  /**
   * One batch, its own auto-committed statement: a deadlock with live traffic (InnoDB takes gap
   * locks on the rows around the ones it deletes) only rolls back that statement, so it is run
   * again after a short pause; deleting what is old is the same whenever it succeeds.
   */
  private int deleteBatch(Connection c, Delete delete, Instant before) throws SQLException {
    for (int attempt = 1; ; attempt++) {
      try {
        return delete.run(c, before, policy.batchSize());
      } catch (SQLException e) {
        if (attempt > TRANSIENT_RETRIES || !once.dialect().isTransient(e)) {
          throw e;
        }
        Pause.sleep(Duration.ofMillis(5L * attempt));
      }
    }
  }

  @Override
  public Retention start() {
    if (thread.start(this::loop)) {
      once.started(this);
    }
    return this;
  }

  private void loop() {
    while (thread.running()) {
      try {
        Round r = runOnce();
        if (r.total() > 0) {
          log.info("retention deleted {}", r);
        }
      } catch (RuntimeException e) {
        log.warn("retention round failed; next one in {}: {}", policy.interval(), e.toString());
      }
      Pause.sleep(policy.interval());
      if (Thread.currentThread().isInterrupted()) {
        return;
      }
    }
  }

  @Override
  public void close() {
    thread.stop();
  }
}
