package dev.once.internal;

import dev.once.DeadLetter;
import dev.once.DeadLetterAction;
import dev.once.DeadLetterFilter;
import dev.once.DeadLetterGroup;
import dev.once.DeadLetters;
import dev.once.OnceException;
import dev.once.StoreException;
import dev.once.spi.AdminDialect;
import dev.once.spi.Dialect;
import dev.once.spi.PublishResult;
import dev.once.spi.Transport;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/** Reads and resolves dead letters; one transaction per dead letter resolved. */
public final class DeadLetterStore implements DeadLetters {
  private static final Duration CONFIRM_TIMEOUT = Duration.ofSeconds(30);

  private final DataSource dataSource;
  private final Transport transport;
  private final AdminDialect admin;
  private final Clock clock;

  public DeadLetterStore(DataSource dataSource, Transport transport, Dialect dialect, Clock clock) {
    this.dataSource = dataSource;
    this.transport = transport;
    this.admin = dialect.admin();
    this.clock = clock;
  }

  @Override
  public List<DeadLetter> list(DeadLetterFilter f) {
    return read("list dead letters", c -> admin.selectDeadLetters(c, f));
  }

  /** Newest first, only ids below {@code beforeId}: a keyset page, never an OFFSET. */
  @Override
  public List<DeadLetter> page(DeadLetterFilter f, long beforeId) {
    return read("page dead letters", c -> admin.pageDeadLetters(c, f, beforeId));
  }

  @Override
  public long count(DeadLetterFilter f) {
    return read("count dead letters", c -> admin.countDeadLetters(c, f));
  }

  @Override
  public Optional<DeadLetter> get(long id) {
    DeadLetterFilter byId = new DeadLetterFilter(null, null, null, null, null, null, null, 1, null);
    return read("read dead letter " + id, c -> admin.selectDeadLetters(c, byId.ids(List.of(id))))
        .stream()
        .findFirst();
  }

  @Override
  public List<DeadLetterAction> actions(DeadLetter d) {
    return read(
        "read the actions on dead letter " + d.id(),
        c -> admin.deadLetterActions(c, d.consumerId(), d.event().id().value()));
  }

  @Override
  public List<DeadLetterGroup> groups(String status, int limit) {
    return read("group dead letters", c -> admin.deadLetterGroups(c, status, limit));
  }

  /** One read on a connection of its own. */
  @FunctionalInterface
  private interface Read<T> {
    T run(Connection c) throws SQLException;
  }

  private <T> T read(String action, Read<T> read) {
    try (Connection c = dataSource.getConnection()) {
      return read.run(c);
    } catch (SQLException e) {
      throw new StoreException(action, e);
    }
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
        if (!admin.resolveDeadLetter(c, d.id(), status, now)) {
          c.rollback(); // somebody else resolved it meanwhile
          return false;
        }
        String eventId = d.event().id().value();
        admin.insertDeadLetterAction(
            c, d.consumerId(), eventId, new DeadLetterAction(action, actor, why, now));
        if (d.isRelay() && action.equals("replay")) {
          admin.unparkOutbox(c, eventId);
        } else if (d.isRelay()) {
          admin.deleteParkedOutbox(c, eventId);
        } else if (action.equals("replay")) {
          admin.deleteAttempts(c, d.consumerId(), eventId);
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
