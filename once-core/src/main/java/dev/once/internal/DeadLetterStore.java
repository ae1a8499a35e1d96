package dev.once.internal;

import dev.once.BrokerMove;
import dev.once.DeadLetter;
import dev.once.DeadLetterAction;
import dev.once.DeadLetterFilter;
import dev.once.DeadLetterGroup;
import dev.once.DeadLetters;
import dev.once.OnceException;
import dev.once.ParkedKey;
import dev.once.StoreException;
import dev.once.jdbc.DeadLetterQuery;
import dev.once.jdbc.DeadLettersDialect;
import dev.once.jdbc.Dialect;
import dev.once.jdbc.ParkedKeyQuery;
import dev.once.spi.BrokerDeadLetter;
import dev.once.spi.InDatabaseAck;
import dev.once.spi.PublishResult;
import dev.once.spi.Replay;
import dev.once.spi.Transport;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Consumer;
import javax.sql.DataSource;

/** Reads and resolves dead letters; one transaction per dead letter resolved. */
public final class DeadLetterStore implements DeadLetters {
  private static final Duration CONFIRM_TIMEOUT = Duration.ofSeconds(30);

  private final DataSource dataSource;
  private final Transport transport;
  private final Dialect dialect;
  private final DeadLettersDialect deadLetters;
  private final Clock clock;

  /**
   * The longest a dead letter may wait for a replay; null: no limit (admin tools that know none).
   */
  private final Duration replayHorizon;

  public DeadLetterStore(DataSource dataSource, Transport transport, Dialect dialect, Clock clock) {
    this(dataSource, transport, dialect, clock, null);
  }

  public DeadLetterStore(
      DataSource dataSource,
      Transport transport,
      Dialect dialect,
      Clock clock,
      Duration replayHorizon) {
    this.replayHorizon = replayHorizon;
    this.dataSource = dataSource;
    this.transport = transport;
    this.dialect = dialect;
    this.deadLetters = dialect.deadLetters();
    this.clock = clock;
  }

  @Override
  public List<DeadLetter> list(DeadLetterFilter f) {
    return read("list dead letters", c -> deadLetters.deadLetters(c, DeadLetterQuery.of(f)));
  }

  /** Newest first, only ids below {@code beforeId}: a keyset page, never an OFFSET. */
  @Override
  public List<DeadLetter> page(DeadLetterFilter f, long beforeId) {
    return read(
        "page dead letters",
        c -> deadLetters.deadLetters(c, DeadLetterQuery.pageBefore(f, beforeId)));
  }

  /** Oldest first, only ids above {@code afterId}, without payloads: a keyset page to list. */
  @Override
  public List<DeadLetter> summaries(DeadLetterFilter f, long afterId) {
    return read(
        "list dead letters",
        c -> deadLetters.deadLetters(c, DeadLetterQuery.summariesAfter(f, afterId)));
  }

  @Override
  public long count(DeadLetterFilter f) {
    return read("count dead letters", c -> deadLetters.countDeadLetters(c, f));
  }

  @Override
  public Optional<DeadLetter> get(long id) {
    DeadLetterFilter byId = new DeadLetterFilter(null, null, null, null, null, null, null, 1, null);
    return read(
            "read dead letter " + id,
            c -> deadLetters.deadLetters(c, DeadLetterQuery.of(byId.ids(List.of(id)))))
        .stream()
        .findFirst();
  }

  @Override
  public List<DeadLetterAction> actions(DeadLetter d) {
    return read(
        "read the actions on dead letter " + d.id(),
        c -> deadLetters.deadLetterActions(c, d.consumerId(), d.event().id().value()));
  }

  @Override
  public List<DeadLetterGroup> groups(String status, int limit) {
    return read("group dead letters", c -> deadLetters.deadLetterGroups(c, status, limit));
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
    return resolve(filter, action, actor, why, action.equals("replay"));
  }

  private List<DeadLetter> resolve(
      DeadLetterFilter filter, String action, String actor, String why, boolean checkHorizon) {
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
    List<DeadLetter> selected = list(open);
    if (checkHorizon) {
      refuseBeyondHorizon(selected);
    }
    List<DeadLetter> done = new ArrayList<>();
    for (DeadLetter d : selected) {
      if (resolveOne(d, action, actor, why, null).isPresent()) {
        done.add(d);
      }
    }
    return done;
  }

  /**
   * Resolves one dead letter in one transaction: its status, the action, and what follows from it.
   * A transport that keeps its messages in this database replays in the same transaction (a
   * replayed head of a parked key goes back to its place, the key released); {@code wholeKey}
   * (discards only) deletes the events behind the key too. Empty if somebody else resolved it
   * meanwhile, else the number of events deleted behind it.
   */
  private OptionalLong resolveOne(
      DeadLetter d, String action, String actor, String why, ParkedKey wholeKey) {
    try {
      return Conflicts.retry(dialect, () -> resolveOnce(d, action, actor, why, wholeKey));
    } catch (SQLException e) {
      throw new StoreException("resolve dead letter " + d.id(), e);
    }
  }

  /**
   * One try of {@link #resolveOne}: a deadlock with live consumers (seen on MariaDB while an
   * ordered consumer ran the keys beside the one replayed) rolls it back whole, and it runs again.
   */
  private OptionalLong resolveOnce(
      DeadLetter d, String action, String actor, String why, ParkedKey wholeKey)
      throws SQLException {
    String status = action.equals("replay") ? "replayed" : "discarded";
    Replay inThisTransaction = d.isRelay() ? null : inDatabaseReplay();
    Instant now = clock.instant();
    long dropped = 0;
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        if (!deadLetters.resolveDeadLetter(c, d.id(), status, now)) {
          c.rollback(); // somebody else resolved it meanwhile
          return OptionalLong.empty();
        }
        String eventId = d.event().id().value();
        deadLetters.insertDeadLetterAction(
            c, d.consumerId(), eventId, new DeadLetterAction(action, actor, why, now));
        if (d.isRelay() && action.equals("replay")) {
          deadLetters.unparkOutbox(c, eventId);
        } else if (d.isRelay()) {
          deadLetters.deleteParkedOutbox(c, eventId);
        } else if (action.equals("replay")) {
          dialect.attempts().deleteAttempts(c, d.consumerId(), eventId);
          // the head of a parked key goes back to its place, the key released
          if (inThisTransaction != null) {
            redeliverIn(c, d, inThisTransaction);
          } else if (!intoLane(c, d, now)) {
            publish(d);
          }
        } else {
          if (wholeKey != null) {
            String with = "with parked key " + wholeKey.key() + " behind event " + eventId;
            DeadLetterAction each =
                new DeadLetterAction(action, actor, why == null ? with : with + ": " + why, now);
            dropped = deadLetters.dropBehindParkedKey(c, wholeKey, each);
          }
          deadLetters.releaseParkedKey(c, d.consumerId(), eventId);
        }
        c.commit();
        if (inThisTransaction != null && action.equals("replay")) {
          inThisTransaction.redeliveredInTransaction();
        }
      } catch (SQLException | RuntimeException e) {
        Jdbc.rollbackQuietly(c);
        throw e;
      }
    }
    return OptionalLong.of(dropped);
  }

  @Override
  public List<ParkedKey> parkedKeys(String consumerId, String key, long afterId, int limit) {
    ParkedKeyQuery q =
        new ParkedKeyQuery(consumerId, key, null, afterId == 0 ? -1 : afterId, limit);
    return read("list parked keys", c -> deadLetters.parkedKeys(c, q));
  }

  @Override
  public List<ParkedKey> parkedKeysHeadedBy(List<Long> deadLetterIds) {
    if (deadLetterIds.isEmpty()) {
      return List.of();
    }
    ParkedKeyQuery q = new ParkedKeyQuery(null, null, deadLetterIds, 0, deadLetterIds.size());
    return read("list parked keys", c -> deadLetters.parkedKeys(c, q));
  }

  @Override
  public List<ParkedKey> replayKey(String consumerId, String key, String actor, String reason) {
    List<ParkedKey> keys = keysToResolve(consumerId, key);
    List<Long> ids = keys.stream().map(ParkedKey::deadLetterId).toList();
    if (ids.isEmpty()) {
      return List.of();
    }
    DeadLetterFilter heads = DeadLetterFilter.open().ids(ids).limit(ids.size());
    List<Long> replayed = replay(heads, actor, reason).stream().map(DeadLetter::id).toList();
    return keys.stream().filter(k -> replayed.contains(k.deadLetterId())).toList();
  }

  @Override
  public List<ParkedKey> discardKey(String consumerId, String key, String actor, String reason) {
    List<ParkedKey> done = new ArrayList<>();
    for (ParkedKey k : keysToResolve(consumerId, key)) {
      Optional<DeadLetter> head = get(k.deadLetterId()).filter(DeadLetter::isOpen);
      head.flatMap(d -> box(resolveOne(d, "discard", actor, reason, k)))
          .ifPresent(n -> done.add(k.withEventsBehind(n)));
    }
    return done;
  }

  private static Optional<Long> box(OptionalLong n) {
    return n.isPresent() ? Optional.of(n.getAsLong()) : Optional.empty();
  }

  /**
   * The parked keys named, those with a dead letter at their head (a replay or discard needs it).
   */
  private List<ParkedKey> keysToResolve(String consumerId, String key) {
    if (key == null) {
      throw new IllegalArgumentException("key must not be null: name the parked key to resolve");
    }
    return parkedKeys(consumerId, key, 0, 10_000).stream()
        .filter(k -> k.deadLetterId() > 0)
        .toList();
  }

  /**
   * A transport that keeps its messages in this database redelivers in the resolving transaction:
   * committed apart, the message was visible (and its key released) while the dead letter still
   * read open, and an ordered consumer that ran it at once parked its key again behind it (the
   * acknowledgement parks a key whose delivery has an open dead letter).
   */
  private Replay inDatabaseReplay() {
    DataSource given = DatabaseWaits.given(dataSource);
    return transport.capability(Replay.class).filter(r -> r.redeliversIn(given)).orElse(null);
  }

  /** An ordered consumer on a broker replays into its key lane, if bound: docs/ORDERING.md. */
  private boolean intoLane(Connection c, DeadLetter d, Instant now) throws SQLException {
    return d.event().key() != null
        && transport.capability(InDatabaseAck.class).isEmpty()
        && dialect.queue().ordersByKey()
        && dialect.queue().enqueueFor(c, d.event(), d.consumerId(), now) > 0;
  }

  private static void redeliverIn(Connection c, DeadLetter d, Replay replay) throws SQLException {
    if (replay.redeliverInTransaction(c, d.event(), d.consumerId()) == 0) {
      throw replayOf(d, "refused: the consumer is not bound to " + d.event().destination());
    }
  }

  /**
   * Publishes before the commit: if the broker refuses, nothing changes; if the commit fails after
   * the publish, the dead letter stays open and the delivery is processed or deduplicated anyway.
   */
  private void publish(DeadLetter d) {
    // to the group that failed only: the others processed it, and retention may have deleted
    // their markers since
    Replay replay =
        transport
            .capability(Replay.class)
            .orElseThrow(
                () ->
                    replayOf(
                        d,
                        "refused: " + transport.name() + " cannot publish to one consumer group"));
    PublishResult r = replay.redeliver(d.event(), d.consumerId(), CONFIRM_TIMEOUT);
    if (!r.isConfirmed(0)) {
      throw replayOf(d, "was not confirmed by " + transport.name() + ": " + r.failures().get(0));
    }
  }

  private static OnceException replayOf(DeadLetter d, String what) {
    return new OnceException(
        "replay of event " + d.event().id() + " for consumer " + d.consumerId() + " " + what);
  }

  @Override
  public List<DeadLetter> replay(DeadLetterFilter filter, String actor, String reason) {
    return resolve(filter, "replay", actor, reason);
  }

  @Override
  public List<DeadLetter> replayBeyondHorizon(
      DeadLetterFilter filter, String actor, String reason) {
    return resolve(filter, "replay", actor, reason, false);
  }

  /**
   * Refuses a replay that selects a dead letter older than the replay horizon, before replaying
   * any: retention keeps markers for {@code redeliveryHorizon + replayHorizon} only, so the markers
   * that make a second delivery a DUPLICATE may be gone.
   */
  private void refuseBeyondHorizon(List<DeadLetter> selected) {
    if (replayHorizon == null) {
      return;
    }
    Instant limit = clock.instant().minus(replayHorizon);
    List<DeadLetter> old = selected.stream().filter(d -> d.deadAt().isBefore(limit)).toList();
    if (!old.isEmpty()) {
      throw new OnceException(
          "replay refused: "
              + old.size()
              + " of the "
              + selected.size()
              + " dead letters selected died before "
              + limit
              + " (older than the replay horizon, "
              + replayHorizon
              + ", e.g. event "
              + old.get(0).event().id()
              + " of consumer "
              + old.get(0).consumerId()
              + "). Retention may have deleted the markers that make a second delivery a"
              + " DUPLICATE, so the replay could act twice. Check the effects by hand, then replay"
              + " deliberately with DeadLetters.replayBeyondHorizon(filter, actor, reason) (once"
              + " dead-letters replay --beyond-horizon), or narrow the selection (--since).");
    }
  }

  @Override
  public List<BrokerDeadLetter> peekBroker(String destination, String consumerId, int limit) {
    return new BrokerDeadLetterMover(dataSource, transport, dialect, clock)
        .peek(destination, consumerId, limit);
  }

  @Override
  public BrokerMove moveFromBroker(
      String destination, String consumerId, int limit, Consumer<BrokerMove> progress) {
    return new BrokerDeadLetterMover(dataSource, transport, dialect, clock)
        .move(destination, consumerId, limit, progress);
  }

  @Override
  public List<DeadLetter> discard(DeadLetterFilter filter, String actor, String reason) {
    return resolve(filter, "discard", actor, reason);
  }
}
