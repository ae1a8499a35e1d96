package dev.once.internal;

import dev.once.BrokerMove;
import dev.once.Event;
import dev.once.StoreException;
import dev.once.jdbc.AttemptCount;
import dev.once.jdbc.Dialect;
import dev.once.spi.BrokerDeadLetter;
import dev.once.spi.BrokerDeadLetterReader;
import dev.once.spi.BrokerDeadLetters;
import dev.once.spi.Transport;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import javax.sql.DataSource;

/**
 * Looks at the broker's own dead letters of a consumer group, or moves them into Once's: one
 * message at a time, the dead letter committed before the broker's message is acknowledged.
 */
final class BrokerDeadLetterMover {
  private final DataSource dataSource;
  private final Transport transport;
  private final Dialect dialect;
  private final Clock clock;

  BrokerDeadLetterMover(DataSource dataSource, Transport transport, Dialect dialect, Clock clock) {
    this.dataSource = dataSource;
    this.transport = transport;
    this.dialect = dialect;
    this.clock = clock;
  }

  /** A reader of the group's broker dead letters; empty where the broker keeps none. */
  private Optional<BrokerDeadLetterReader> reader(String destination, String group) {
    return transport.capability(BrokerDeadLetters.class).map(b -> b.reader(destination, group));
  }

  List<BrokerDeadLetter> peek(String destination, String group, int limit) {
    checkLimit(limit);
    Optional<BrokerDeadLetterReader> opened = reader(destination, group);
    if (opened.isEmpty()) {
      return List.of();
    }
    List<BrokerDeadLetter> seen = new ArrayList<>();
    try (BrokerDeadLetterReader reader = opened.get()) {
      BrokerDeadLetter m;
      while (seen.size() < limit && (m = reader.next()) != null) {
        seen.add(m);
      }
    } // closing gives them all back
    return seen;
  }

  BrokerMove move(String destination, String group, int limit, Consumer<BrokerMove> progress) {
    checkLimit(limit);
    Optional<BrokerDeadLetterReader> opened = reader(destination, group);
    BrokerMove done = new BrokerMove(0, 0, 0);
    if (opened.isEmpty()) {
      return done;
    }
    try (BrokerDeadLetterReader reader = opened.get()) {
      BrokerDeadLetter m;
      while (done.taken() < limit && (m = reader.next()) != null) {
        boolean added = write(group, m); // committed ...
        reader.acknowledge(m); // ... before the broker forgets the message
        long malformed = done.malformed() + (m.delivery().isMalformed() ? 1 : 0);
        done =
            added
                ? new BrokerMove(done.moved() + 1, done.alreadyThere(), malformed)
                : new BrokerMove(done.moved(), done.alreadyThere() + 1, malformed);
        progress.accept(done);
      }
    }
    return done;
  }

  private static void checkLimit(int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be > 0, was " + limit);
    }
  }

  /** The dead letter of one message, in a transaction of its own; false if it was already open. */
  private boolean write(String group, BrokerDeadLetter m) {
    Event event = m.delivery().event();
    String id = event.id().value();
    Instant now = clock.instant();
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        AttemptCount known = dialect.attempts().loadAttempts(c, group, List.of(id)).get(id);
        Failure failure = failure(m);
        Instant last = m.deadAt() != null ? m.deadAt() : now;
        Instant first = known != null ? known.firstFailedAt() : last;
        int attempts = known != null ? Math.max(1, known.attempts()) : 1;
        boolean added =
            dialect
                .deadLetters()
                .insertDeadLetter(c, event, failure.attempt(group, id, attempts, first, last), now);
        if (known != null) {
          dialect.attempts().deleteAttempts(c, group, id);
        }
        c.commit();
        return added;
      } catch (SQLException | RuntimeException e) {
        Jdbc.rollbackQuietly(c);
        throw e;
      }
    } catch (SQLException e) {
      throw new StoreException("move a broker dead letter of " + group + " into Once's", e);
    }
  }

  private Failure failure(BrokerDeadLetter m) {
    if (m.delivery().isMalformed()) {
      return Failure.malformed(
          m.delivery().malformed()
              + " ("
              + transport.name()
              + " dead-lettered it on its own: "
              + (m.reason() == null ? "no reason given" : m.reason())
              + ")");
    }
    return Failure.brokerDeadLettered(
        transport.name(), m.queue(), m.reason(), m.deadAt(), m.deaths());
  }
}
