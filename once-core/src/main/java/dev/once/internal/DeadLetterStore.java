package dev.once.internal;

import dev.once.DeadLetter;
import dev.once.DeadLetterFilter;
import dev.once.DeadLetters;
import dev.once.OnceException;
import dev.once.StoreException;
import dev.once.spi.Dialect;
import dev.once.spi.PublishResult;
import dev.once.spi.Transport;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/** Reads and resolves dead letters; one transaction per dead letter resolved. */
public final class DeadLetterStore implements DeadLetters {
  private static final Duration CONFIRM_TIMEOUT = Duration.ofSeconds(30);

  private final DataSource dataSource;
  private final Transport transport;
  private final Dialect dialect;
  private final Clock clock;

  public DeadLetterStore(DataSource dataSource, Transport transport, Dialect dialect, Clock clock) {
    this.dataSource = dataSource;
    this.transport = transport;
    this.dialect = dialect;
    this.clock = clock;
  }

  @Override
  public List<DeadLetter> list(DeadLetterFilter f) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(dialect.selectDeadLetters())) {
      Jdbc.bind(
          ps,
          f.consumerId(),
          f.consumerId(),
          f.type(),
          f.type(),
          f.fingerprint(),
          f.fingerprint(),
          ts(f.from()),
          ts(f.from()),
          ts(f.to()),
          ts(f.to()),
          f.status(),
          f.status(),
          f.eventId(),
          f.eventId(),
          ids(c, f),
          ids(c, f),
          f.limit());
      List<DeadLetter> out = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(read(rs));
        }
      }
      return out;
    } catch (SQLException e) {
      throw new StoreException("list dead letters", e);
    }
  }

  private static Array ids(Connection c, DeadLetterFilter f) throws SQLException {
    return f.ids() == null ? null : Jdbc.longArray(c, List.copyOf(f.ids()));
  }

  private static Timestamp ts(Instant i) {
    return i == null ? null : Timestamp.from(i);
  }

  private static DeadLetter read(ResultSet rs) throws SQLException {
    Timestamp resolved = rs.getTimestamp("resolved_at");
    return new DeadLetter(
        rs.getLong("id"),
        rs.getString("consumer_id"),
        Jdbc.event(rs),
        rs.getInt("attempts"),
        rs.getTimestamp("first_failed_at").toInstant(),
        rs.getTimestamp("last_failed_at").toInstant(),
        rs.getString("error_class"),
        rs.getString("error_fingerprint"),
        rs.getString("error_message"),
        rs.getBoolean("final_attempt_crashed"),
        rs.getString("status"),
        rs.getTimestamp("dead_at").toInstant(),
        resolved == null ? null : resolved.toInstant());
  }

  /** Replays or discards each open dead letter the filter selects; returns those resolved. */
  public List<DeadLetter> resolve(
      DeadLetterFilter filter, String action, String actor, String why) {
    DeadLetterFilter open =
        new DeadLetterFilter(
            filter.consumerId(),
            filter.eventId(),
            filter.type(),
            filter.fingerprint(),
            filter.from(),
            filter.to(),
            "dead",
            filter.limit(),
            filter.ids());
    List<DeadLetter> done = new ArrayList<>();
    for (DeadLetter d : list(open)) {
      if (resolveOne(d, action, actor, why)) {
        done.add(d);
      }
    }
    return done;
  }

  private boolean resolveOne(DeadLetter d, String action, String actor, String why) {
    String status = action.equals("replay") ? "replayed" : "discarded";
    Instant now = clock.instant();
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        if (Jdbc.update(c, dialect.resolveDeadLetter(), status, now, d.id()) == 0) {
          c.rollback(); // somebody else resolved it meanwhile
          return false;
        }
        String eventId = d.event().id().value();
        Jdbc.update(
            c, dialect.insertDeadLetterAction(), d.consumerId(), eventId, action, actor, why, now);
        if (d.isRelay()) {
          Jdbc.update(
              c,
              action.equals("replay") ? dialect.unparkOutbox() : dialect.deleteParkedOutbox(),
              eventId);
        } else if (action.equals("replay")) {
          Jdbc.update(c, dialect.deleteAttempt(), d.consumerId(), eventId);
          publish(d);
        }
        c.commit();
        return true;
      } catch (SQLException | RuntimeException e) {
        Jdbc.rollbackQuietly(c);
        throw e;
      }
    } catch (SQLException e) {
      throw new StoreException("resolve dead letter " + d.id(), e);
    }
  }

  /**
   * Publishes before the commit: if the broker refuses, nothing changes; if the commit fails after
   * the publish, the dead letter stays open and the delivery is processed or deduplicated anyway.
   */
  private void publish(DeadLetter d) {
    PublishResult r = transport.publish(List.of(d.event()), CONFIRM_TIMEOUT);
    if (!r.isConfirmed(0)) {
      throw new OnceException(
          "replay of event "
              + d.event().id()
              + " for consumer "
              + d.consumerId()
              + " was not confirmed by "
              + transport.name()
              + ": "
              + r.failures().get(0));
    }
  }

  @Override
  public List<DeadLetter> replay(DeadLetterFilter filter, String actor, String reason) {
    return resolve(filter, "replay", actor, reason);
  }

  @Override
  public List<DeadLetter> discard(DeadLetterFilter filter, String actor, String reason) {
    return resolve(filter, "discard", actor, reason);
  }
}
