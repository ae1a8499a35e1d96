package dev.once;

import java.time.Duration;

/**
 * How long Once waits for its database, so that a half-open connection (a server that failed over,
 * a NAT or firewall that dropped its state: no reset ever reaches the client) costs a bounded pause
 * instead of a thread stuck in a socket read for good. {@link Duration#ZERO} turns a bound off.
 *
 * <ul>
 *   <li>{@code network}: the longest Once waits for the next bytes of an answer, on every
 *       connection it borrows ({@link java.sql.Connection#setNetworkTimeout}, set when borrowed and
 *       put back as it was before the connection is returned; a pool's own shorter timeout is
 *       kept). Past it the driver closes the connection and the work fails as a lost connection:
 *       the consumer keeps its deliveries and tries again on a new one. Must be longer than any
 *       statement your handlers run.
 *   <li>{@code lockWait}: the longest a statement of Once's transactions waits for a row lock
 *       (PostgreSQL {@code lock_timeout}, MariaDB {@code innodb_lock_wait_timeout}). Shorter than
 *       {@code network}, so that the server says "lock wait" before the client gives up.
 *   <li>{@code idleInTransaction}: the longest the server keeps a transaction of Once's open while
 *       it waits for the client (PostgreSQL {@code idle_in_transaction_session_timeout}, MariaDB
 *       {@code idle_transaction_timeout}); past it the server ends the session and releases its
 *       locks — those of a worker whose connection went half-open in the middle of a batch, which
 *       the server would otherwise keep until its TCP keepalive (hours) or for ever.
 * </ul>
 *
 * <p>The two server bounds are applied where the session does not already have them as short: on
 * PostgreSQL scoped to each of Once's engine and consumer transactions; MariaDB cannot scope a
 * session variable to a transaction, so there Once leaves a pool it was given as it is and warns at
 * start, naming the URL parameter that sets them (the pools the {@code once} command creates have
 * them). See docs/OPERATING.md, "Half-open connections".
 *
 * @param network the longest wait for the next bytes of an answer
 * @param lockWait the longest wait for a row lock
 * @param idleInTransaction the longest the server keeps an idle transaction of Once's open
 */
public record DatabaseTimeouts(Duration network, Duration lockWait, Duration idleInTransaction) {

  /** Network 30 s, lock wait 10 s, idle in transaction 30 s. */
  public static final DatabaseTimeouts DEFAULT =
      new DatabaseTimeouts(Duration.ofSeconds(30), Duration.ofSeconds(10), Duration.ofSeconds(30));

  /**
   * No bound: every wait as the pool and the server make it: what Once did before these bounds, for
   * a test that shows what they change.
   */
  public static final DatabaseTimeouts NONE =
      new DatabaseTimeouts(Duration.ZERO, Duration.ZERO, Duration.ZERO);

  public DatabaseTimeouts {
    check("databaseTimeouts.network", network);
    check("databaseTimeouts.lockWait", lockWait);
    check("databaseTimeouts.idleInTransaction", idleInTransaction);
    if (!network.isZero() && !lockWait.isZero() && lockWait.compareTo(network) >= 0) {
      throw new ConfigurationException(
          "databaseTimeouts.lockWait",
          "is "
              + lockWait
              + ", not shorter than databaseTimeouts.network "
              + network
              + ": the client would give up on the connection before the server reports the lock"
              + " wait");
    }
  }

  private static void check(String path, Duration value) {
    if (value == null) {
      throw new ConfigurationException(path, "is required (Duration.ZERO turns the bound off)");
    }
    if (value.isNegative()) {
      throw new ConfigurationException(path, "must be >= 0, was " + value);
    }
    if (value.toMillis() > Integer.MAX_VALUE) {
      throw new ConfigurationException(path, "must be under 24 days, was " + value);
    }
    if (!value.isZero() && value.toMillis() == 0) {
      throw new ConfigurationException(path, "must be at least 1 ms or zero, was " + value);
    }
  }

  /** The same bounds with another network timeout. */
  public DatabaseTimeouts withNetwork(Duration network) {
    return new DatabaseTimeouts(network, lockWait, idleInTransaction);
  }
}
