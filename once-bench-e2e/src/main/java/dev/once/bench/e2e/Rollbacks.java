package dev.once.bench.e2e;

import dev.once.OnceListener;
import dev.once.ReceivedEvent;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Consumer transactions rolled back by a deadlock or a lock wait timeout and run again, per phase
 * of a bench run: Once's (heard as {@link OnceListener#transientRollback}), ceiling A's and ceiling
 * C's. On PostgreSQL they stay 0; on MariaDB InnoDB's locks on duplicate-key checks (markers and
 * outbox ids whose deleted rows are not purged yet) make them happen.
 */
final class Rollbacks implements OnceListener {
  final AtomicLong once = new AtomicLong();
  final AtomicLong ceilingA = new AtomicLong();
  final AtomicLong ceilingC = new AtomicLong();

  /** Producer transactions of every phase (the producers run in every one). */
  static final AtomicLong PRODUCERS = new AtomicLong();

  @Override
  public void transientRollback(List<ReceivedEvent> batch, SQLException cause) {
    once.incrementAndGet();
  }

  /** Zero again: the warm-up's are not counted. */
  void clear() {
    once.set(0);
    ceilingA.set(0);
    ceilingC.set(0);
    PRODUCERS.set(0);
  }

  /** A deadlock or a lock wait timeout: the transaction was rolled back and may run again. */
  static boolean isConflict(SQLException e) {
    return e.getErrorCode() == 1213 // MariaDB/MySQL ER_LOCK_DEADLOCK
        || e.getErrorCode() == 1205 // ER_LOCK_WAIT_TIMEOUT
        || "40001".equals(e.getSQLState())
        || "40P01".equals(e.getSQLState()); // PostgreSQL deadlock_detected
  }
}
