package dev.once.jdbc;

import dev.once.spi.Validate;
import java.time.Duration;

/**
 * The server's bounds on a transaction's waits: for a row lock, and for the client while the
 * transaction is open. {@link Duration#ZERO}: no bound.
 *
 * @param lockWait the longest a statement waits for a row lock
 * @param idleInTransaction the longest the server keeps an open transaction whose client says
 *     nothing before it ends the session
 */
public record TransactionWaits(Duration lockWait, Duration idleInTransaction) {
  /** Neither bound: nothing to apply, or nothing known. */
  public static final TransactionWaits NONE = new TransactionWaits(Duration.ZERO, Duration.ZERO);

  public TransactionWaits {
    Validate.notNull("lockWait", lockWait);
    Validate.notNull("idleInTransaction", idleInTransaction);
  }

  /** Whether there is nothing to apply. */
  public boolean isNone() {
    return lockWait.isZero() && idleInTransaction.isZero();
  }

  /**
   * What of {@code wanted} a session with these bounds still lacks: a wanted bound where this one
   * is missing or longer, else zero.
   */
  public TransactionWaits missingFrom(TransactionWaits wanted) {
    return new TransactionWaits(
        lacking(lockWait, wanted.lockWait), lacking(idleInTransaction, wanted.idleInTransaction));
  }

  private static Duration lacking(Duration have, Duration want) {
    return !want.isZero() && (have.isZero() || have.compareTo(want) > 0) ? want : Duration.ZERO;
  }
}
