package dev.once.spi;

import java.sql.Connection;

/**
 * Runs Once's own transactions: a producer's {@code once.inTransaction} and a consumer's batch
 * (markers, handlers, outgoing events). The default opens a connection of the {@code DataSource},
 * commits and closes it; a framework integration (Spring's transaction manager) runs the same work
 * in the transaction it manages, so that everything the application writes on that transaction
 * commits or rolls back with Once's rows.
 */
public interface TransactionRunner {

  /**
   * Runs {@code work} in a transaction and gives it the transaction's connection (auto-commit off;
   * the work neither commits nor closes it). Commits when the work returns and rolls back when it
   * throws, rethrowing what it threw. {@code afterCommit} runs once the transaction has committed
   * (for a joined outer transaction: when that one commits; never when it rolls back).
   *
   * <p>A failed commit is rethrown as the {@link java.sql.SQLException} that caused it where there
   * is one, so that the store can tell a transient conflict from a lasting failure.
   */
  <T> T inTransaction(Work<T> work, Runnable afterCommit) throws Exception;

  /**
   * Whether rolling the connection back (to a savepoint, or whole) undoes everything a failed
   * handler did. {@code false} when a framework keeps state beside the connection (a JPA
   * persistence context that would still be flushed at commit): a failing handler then makes the
   * whole batch transaction roll back through this runner, and the batch runs again with that
   * delivery recorded as failed instead of handled.
   */
  default boolean undoesOnConnection() {
    return true;
  }

  /** Work on the connection of one transaction. */
  @FunctionalInterface
  interface Work<T> {
    T run(Connection connection) throws Exception;
  }
}
