package dev.once.internal.retention;

import dev.once.Retention;
import dev.once.RetentionPolicy;
import dev.once.StoreException;
import dev.once.internal.Conflicts;
import dev.once.internal.EngineThread;
import dev.once.internal.OnceImpl;
import dev.once.internal.Pause;
import dev.once.internal.PoolNeeds;
import dev.once.jdbc.RetentionDialect;
import dev.once.jdbc.RetentionDialect.Retained;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The retention janitor. One round: take the schema's retention advisory lock on one session (or
 * skip the round if another instance has it), then delete each kind of old row in batches of {@code
 * batchSize}, every batch in its own auto-committed statement, until a batch comes back short. No
 * statement holds locks for longer than one small batch takes.
 */
public final class RetentionImpl implements Retention {
  private static final Logger log = LoggerFactory.getLogger(RetentionImpl.class);

  private final OnceImpl once;
  private final RetentionPolicy policy;
  private final RetentionDialect retention;
  private final Clock clock;
  private final EngineThread thread = new EngineThread("once-retention");

  public RetentionImpl(OnceImpl once) {
    this.once = once;
    this.policy = once.config().retention();
    this.retention = once.dialect().retention();
    this.clock = once.config().clock();
  }

  @Override
  public Round runOnce() {
    try (Connection c = once.dataSource().getConnection()) {
      c.setAutoCommit(true);
      if (!retention.tryRetentionLock(c)) {
        return new Round(true, 0, 0, 0, 0);
      }
      try {
        Instant now = clock.instant();
        return new Round(
            false,
            drain(c, Retained.MARKERS, now.minus(policy.markers())),
            drain(c, Retained.SENT_OUTBOX, now.minus(policy.sentOutbox())),
            drain(c, Retained.RESOLVED_DEAD_LETTERS, now.minus(policy.resolvedDeadLetters())),
            drain(c, Retained.ATTEMPTS, now.minus(policy.markers()))
                + drain(c, Retained.SUSPECTS, now.minus(policy.markers())));
      } finally {
        retention.retentionUnlock(c);
      }
    } catch (SQLException e) {
      throw new StoreException("retention round", e);
    }
  }

  private long drain(Connection c, Retained what, Instant before) throws SQLException {
    long total = 0;
    while (thread.running() || !thread.started()) {
      int n = deleteBatch(c, what, before);
      total += n;
      if (n < policy.batchSize()) {
        break;
      }
    }
    return total;
  }

  /**
   * One batch, its own auto-committed statement: a deadlock with live traffic (InnoDB takes gap
   * locks on the rows around the ones it deletes) only rolls back that statement, so it is run
   * again after a short pause; deleting what is old is the same whenever it succeeds.
   */
  private int deleteBatch(Connection c, Retained what, Instant before) throws SQLException {
    return Conflicts.retry(
        once.dialect(), () -> retention.deleteOld(c, what, before, policy.batchSize()));
  }

  @Override
  public Retention start() {
    if (thread.started()) {
      return this;
    }
    once.starting(this, new PoolNeeds.Need("retention", 1, 0, 0));
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
    once.stopped(this);
  }
}
