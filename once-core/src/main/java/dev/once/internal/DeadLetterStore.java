package dev.once.internal;

import dev.once.DeadLetter;
import dev.once.DeadLetterAction;
import dev.once.DeadLetterFilter;
import dev.once.DeadLetterGroup;
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
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
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

  /** Newest first, only ids below {@code beforeId}: a keyset page, never an OFFSET. */
  @Override
  public List<DeadLetter> page(DeadLetterFilter f, long beforeId) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(dialect.deadLetterPage())) {
      Object[] filters = filterParams(c, f);
      Object[] params = Arrays.copyOf(filters, filters.length + 2);
      params[filters.length] = beforeId;
      params[filters.length + 1] = f.limit();
      Jdbc.bind(ps, params);
      return readAll(ps);
    } catch (SQLException e) {
      throw new StoreException("page dead letters", e);
    }
  }

  @Override
  public long count(DeadLetterFilter f) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(dialect.countDeadLetters())) {
      Jdbc.bind(ps, filterParams(c, f));
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    } catch (SQLException e) {
      throw new StoreException("count dead letters", e);
    }
  }

  @Override
  public Optional<DeadLetter> get(long id) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(dialect.selectDeadLetterById())) {
      Jdbc.bind(ps, id);
      return readAll(ps).stream().findFirst();
    } catch (SQLException e) {
      throw new StoreException("read dead letter " + id, e);
    }
  }

  @Override
  public List<DeadLetterAction> actions(DeadLetter d) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(dialect.selectDeadLetterActions())) {
      Jdbc.bind(ps, d.consumerId(), d.event().id().value());
      List<DeadLetterAction> out = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(
              new DeadLetterAction(
                  rs.getString("action"),
                  rs.getString("actor"),
                  rs.getString("reason"),
                  rs.getTimestamp("acted_at").toInstant()));
        }
      }
      return out;
    } catch (SQLException e) {
      throw new StoreException("read the actions on dead letter " + d.id(), e);
    }
  }

  @Override
  public List<DeadLetterGroup> groups(String status, int limit) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(dialect.deadLetterGroups())) {
      Jdbc.bind(ps, status, status, limit);
      List<DeadLetterGroup> out = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(
              new DeadLetterGroup(
                  rs.getString("consumer_id"),
                  rs.getString("event_type"),
                  rs.getString("error_fingerprint"),
                  rs.getString("error_class"),
                  rs.getLong("count"),
                  rs.getTimestamp("first_dead_at").toInstant(),
                  rs.getTimestamp("last_dead_at").toInstant(),
                  rs.getString("sample_message")));
        }
      }
      return out;
    } catch (SQLException e) {
      throw new StoreException("group dead letters", e);
    }
  }

  private static Object[] filterParams(Connection c, DeadLetterFilter f) throws SQLException {
    return new Object[] {
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
      ids(c, f)
    };
  }

  private static List<DeadLetter> readAll(PreparedStatement ps) throws SQLException {
    List<DeadLetter> out = new ArrayList<>();
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.add(read(rs));
      }
    }
    return out;
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
