package dev.once.internal.requests;

import dev.once.TxWork;
import dev.once.internal.EngineLifecycle;
import dev.once.internal.Listeners;
import dev.once.jdbc.RequestKeysDialect;
import dev.once.jdbc.StatusDialect;
import java.time.Clock;
import javax.sql.DataSource;

/**
 * What request keys read of their {@code Once}, and nothing else.
 *
 * @param dataSource connections for the table check, a lookup and the sweeper's deletes
 * @param requestKeys the dialect's statements on {@code once_request}
 * @param status the dialect's reads of the schema (whether {@code once_request} exists)
 * @param transactions runs a request as one Once transaction (a producer's)
 * @param lifecycle tells the {@code Once} that the sweeper starts
 */
public record RequestKeysContext(
    DataSource dataSource,
    RequestKeysDialect requestKeys,
    StatusDialect status,
    Clock clock,
    Listeners listener,
    Transactions transactions,
    EngineLifecycle lifecycle) {

  /** Runs work in a Once transaction, as {@code Once.inTransaction} does. */
  public interface Transactions {
    <T> T inTransaction(TxWork<T> work);
  }
}
