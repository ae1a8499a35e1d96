package dev.once.spring;

import dev.once.OnceException;
import dev.once.spi.TransactionRunner;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionStatus;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Runs Once's transactions on the application's {@link PlatformTransactionManager} ({@code
 * DataSourceTransactionManager}, {@code JdbcTransactionManager} or {@code JpaTransactionManager}):
 * a consumer's batch begins a Spring transaction, and Once's rows (markers, outgoing events, dead
 * letters) go on its connection, so that whatever a handler writes through {@code JdbcTemplate},
 * {@code JdbcClient} or a JPA repository commits or rolls back with them. A producer's {@code
 * once.inTransaction} (and {@link OncePublisher}) joins the caller's transaction when there is one,
 * whichever transaction manager began it, provided it holds a connection of Once's data source.
 *
 * <p>Rolling back to a savepoint does not undo what a framework holds beside the connection (JPA's
 * persistence context, transaction synchronizations), so a failing handler rolls back the whole
 * batch transaction and the batch runs again without it ({@link #undoesOnConnection()} is false).
 */
public final class SpringTransactions implements TransactionRunner {
  private static final Logger log = LoggerFactory.getLogger(SpringTransactions.class);
  private static final ThreadLocal<TransactionStatus> CURRENT = new ThreadLocal<>();

  private final PlatformTransactionManager transactionManager;
  private final DataSource dataSource;
  private final TransactionTemplate template;

  public SpringTransactions(PlatformTransactionManager transactionManager, DataSource dataSource) {
    this.transactionManager = transactionManager;
    this.dataSource = dataSource;
    this.template = new TransactionTemplate(transactionManager);
    template.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRED);
  }

  @Override
  public <T> T inTransaction(Work<T> work, Runnable afterCommit) throws Exception {
    if (TransactionSynchronizationManager.isActualTransactionActive()) {
      return joined(work, afterCommit);
    }
    boolean[] registered = {false};
    T result;
    try {
      result =
          template.execute(
              status -> {
                TransactionStatus outer = CURRENT.get();
                CURRENT.set(status);
                try {
                  T r = work.run(connection());
                  registered[0] = afterCommit(afterCommit);
                  return r;
                } catch (RuntimeException e) {
                  throw new FromWork(e);
                } catch (Exception e) {
                  throw new FromWork(e);
                } finally {
                  CURRENT.set(outer);
                }
              });
    } catch (FromWork e) {
      throw e.cause;
    } catch (RuntimeException e) { // from the transaction manager: begin, commit or rollback
      SQLException sql = sqlCause(e);
      throw sql != null ? sql : e;
    }
    if (!registered[0]) {
      afterCommit.run();
    }
    return result;
  }

  /**
   * Runs in the caller's transaction, whichever transaction manager began it, as long as it holds a
   * connection of Once's data source; the caller commits or rolls back.
   */
  private <T> T joined(Work<T> work, Runnable afterCommit) throws Exception {
    T result = work.run(connection());
    if (!afterCommit(afterCommit)) {
      afterCommit.run();
    }
    return result;
  }

  @Override
  public boolean undoesOnConnection() {
    return false;
  }

  /** The transaction manager this runner uses. */
  public PlatformTransactionManager transactionManager() {
    return transactionManager;
  }

  /**
   * Writes what the current transaction holds beside the connection (JPA's pending changes) to the
   * database now, so that a handler's constraint violation fails that handler instead of the whole
   * batch's commit. Does nothing outside a transaction run by this class.
   */
  static void flush() {
    TransactionStatus status = CURRENT.get();
    if (status != null) {
      status.flush();
    }
  }

  /** The connection of the current transaction; fails if the transaction is not on this pool. */
  private Connection connection() throws SQLException {
    Connection c = DataSourceUtils.getConnection(dataSource);
    if (c.getAutoCommit()) {
      DataSourceUtils.releaseConnection(c, dataSource);
      throw new OnceException(
          "the current Spring transaction does not hold a connection of Once's DataSource"
              + " (transaction manager "
              + transactionManager.getClass().getSimpleName()
              + "): Once's rows would commit on their own. Give Once the DataSource that the"
              + " transaction manager manages");
    }
    // released by the transaction manager at the end of the transaction
    return c;
  }

  private static boolean afterCommit(Runnable action) {
    if (!TransactionSynchronizationManager.isSynchronizationActive()) {
      return false;
    }
    TransactionSynchronizationManager.registerSynchronization(
        new TransactionSynchronization() {
          @Override
          public void afterCommit() {
            try {
              action.run();
            } catch (RuntimeException e) {
              log.warn("once: after-commit action failed: {}", e.toString());
            }
          }
        });
    return true;
  }

  private static SQLException sqlCause(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException sql) {
        return sql;
      }
    }
    return null;
  }

  /** Carries what the work threw through the template, which rolls back on it. */
  private static final class FromWork extends RuntimeException {
    final Exception cause;

    FromWork(Exception cause) {
      super(null, null, false, false);
      this.cause = cause;
    }
  }
}
