package dev.once.testkit;

import dev.once.Event;
import dev.once.EventId;
import dev.once.jdbc.Dialect;
import dev.once.jdbc.FailedAttempt;
import dev.once.jdbc.Sql;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * What the parts of {@link DialectContract} share: the data source and dialect under test, and
 * transactions of their own for each statement. The parts ({@link FlavourContract}, {@link
 * StoreDialectContract}, {@link AdminDialectContract}, {@link OrderedQueueContract}) are interfaces
 * of test methods over it, which {@link DialectContract} implements side by side: one abstract
 * class, no chain.
 */
interface ContractFixture {

  /** A data source whose current schema holds Once's tables. */
  DataSource dataSource();

  /** The dialect under test. */
  Dialect dialect();

  default Sql sql() {
    return new Sql(dialect().flavour());
  }

  default String unique(String prefix) {
    return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
  }

  /** Now, truncated to what every database keeps (microseconds). */
  default Instant now() {
    return Instant.now().truncatedTo(ChronoUnit.MICROS);
  }

  @FunctionalInterface
  interface Work<T> {
    T run(Connection c) throws SQLException;
  }

  /** Runs {@code work} in a transaction of its own and commits it. */
  default <T> T tx(Work<T> work) throws SQLException {
    try (Connection c = dataSource().getConnection()) {
      c.setAutoCommit(false);
      try {
        T result = work.run(c);
        c.commit();
        return result;
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      }
    }
  }

  /** {@link #tx} of a yes-or-no statement. */
  default boolean yes(Work<Boolean> work) throws SQLException {
    return tx(work);
  }

  /** {@link #tx} of a statement that counts. */
  default long count(Work<? extends Number> work) throws SQLException {
    return tx(work).longValue();
  }

  /** Writes an open dead letter of {@code e} for {@code consumer}; false if one is open already. */
  default boolean deadLetter(Connection c, String consumer, Event e, int attempts)
      throws SQLException {
    Instant now = now();
    return dialect()
        .deadLetters()
        .insertDeadLetter(
            c,
            e,
            new FailedAttempt(
                consumer,
                e.id().value(),
                attempts,
                now,
                now,
                "java.lang.Error",
                "fp-" + consumer,
                "m",
                false),
            now);
  }

  default Event event(String destination, String id, Map<String, String> headers) {
    return new Event(
        new EventId(id),
        destination,
        "key-" + id,
        "Type",
        ("{\"id\":\"" + id + "\"}").getBytes(StandardCharsets.UTF_8),
        headers);
  }
}
