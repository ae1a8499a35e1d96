package dev.once.internal.relay;

import dev.once.Event;
import dev.once.InvalidEventException;
import dev.once.OnceConfig;
import dev.once.Relay;
import dev.once.StoreException;
import dev.once.Tracing;
import dev.once.internal.DatabaseWaits;
import dev.once.internal.DeadLetterWriter;
import dev.once.internal.EngineThread;
import dev.once.internal.Failure;
import dev.once.internal.LogContext;
import dev.once.internal.Pause;
import dev.once.internal.PoolNeeds;
import dev.once.internal.Spans;
import dev.once.internal.Wakeup;
import dev.once.jdbc.Dialect;
import dev.once.jdbc.OutboxRow;
import dev.once.jdbc.RelayClaim;
import dev.once.jdbc.RelayPartitions;
import dev.once.spi.Delivery;
import dev.once.spi.InDatabasePublish;
import dev.once.spi.MessageDecoder;
import dev.once.spi.Outage;
import dev.once.spi.PublishResult;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One relay. A batch is one transaction: lock free key partitions (advisory, released at the end of
 * the transaction, also when the process dies), read their oldest pending rows, publish them, wait
 * for confirms, mark the confirmed ones sent, commit. A crash anywhere before the commit leaves the
 * rows pending and they are published again with the same ids. A transport that keeps its messages
 * in the same database (the table queue on Once's data source) publishes inside that transaction:
 * then a crash before the commit leaves no copy behind, and nothing is published twice.
 */
public final class RelayImpl implements Relay {
  private static final Logger log = LoggerFactory.getLogger(RelayImpl.class);
  private static final Duration CONTENDED_WAIT = Duration.ofMillis(5);

  /** What it reads of its {@code Once} (the name kept: the engine reads as it did). */
  private final RelayContext once;

  private final OnceConfig config;
  private final Dialect dialect;
  private final DeadLetterWriter deadLetters;

  /**
   * The transport writes the batch in this relay's transaction (the table queue on Once's own
   * database): one commit per batch instead of the broker's plus the relay's, and no republish
   * after a crash between the two. Null when the relay publishes through the broker.
   */
  private final InDatabasePublish inDatabase;

  /**
   * The transport takes a batch whole or not at all (it keeps its messages in a database): a key's
   * rows of a key-ordered destination may go in one batch. Through a broker that confirms each
   * message on its own, a key's next row waits for the next batch.
   */
  private final boolean wholeBatches;

  /** The last batch found due rows but no free partition: another relay holds them. */
  private volatile boolean contended;

  /**
   * The last batch left due partitions to others (its share, or ones another relay held), or
   * claimed a full batch: another relay of the process may help.
   */
  private volatile boolean more;

  /**
   * The last batch claimed rows it left pending (a key's later rows behind its first, through a
   * broker): its relay looks again at once instead of waiting for a wake-up.
   */
  private volatile boolean heldBack;

  /** The last claim filled a batch: only then does a relay leave a share to the others. */
  private volatile boolean behind;

  /** The last batch's messages that were lost, not refused (see {@link PublishResult}). */
  private volatile Lost lost = Lost.NONE;

  /** Rows whose destination has no consumer bound yet wait, uncharged. */
  private final UnboundDestinations unbound;

  private final EngineThread thread = new EngineThread("once-relay");

  /**
   * An outbox row; {@code malformed} says why it does not decode (then event is a stand-in); {@code
   * orderedKey} its destination and key when the destination is key-ordered, else null.
   */
  private record Row(
      long id, Event event, Instant createdAt, int attempts, String malformed, String orderedKey) {}

  public RelayImpl(RelayContext once) {
    this.once = once;
    this.config = once.config();
    this.dialect = once.dialect();
    this.deadLetters = new DeadLetterWriter(dialect);
    this.unbound = new UnboundDestinations(dialect, config.relayRetry().backoff());
    this.inDatabase = once.inDatabase();
    this.wholeBatches = once.transport().capability(InDatabasePublish.class).isPresent();
    once.keyOrdered().load();
  }

  @Override
  public int runOnce() {
    lost = Lost.NONE;
    try {
      return DatabaseWaits.onConnection(once.dataSource(), this::batch);
    } catch (SQLException e) {
      throw new StoreException("relay batch", e);
    }
  }

  /** One batch in a transaction on {@code c}, which it commits; the rows it sent. */
  private int batch(Connection c) throws SQLException {
    Set<String> keyOrdered = once.keyOrdered().current(c);
    c.setAutoCommit(false);
    List<Row> claimed = claim(c, keyOrdered);
    List<Row> publishable =
        keyOrdered.isEmpty()
            ? claimed
            : KeyOrderBatch.publishable(
                claimed, Row::orderedKey, r -> r.malformed() != null, !wholeBatches);
    heldBack = publishable.size() < claimed.size();
    List<Row> rows = parkMalformed(c, publishable);
    if (rows.isEmpty()) {
      c.commit();
      return 0;
    }
    List<Event> events = BatchLists.map(rows, Row::event);
    // one span per event sent, linked to its producer's; null when tracing is off
    Tracing.Span[] spans = Spans.start(once.tracing(), once.transport(), events, Tracing::send);
    PublishResult result;
    try {
      result =
          inDatabase != null
              ? inDatabase.publishInTransaction(c, events)
              : once.transport().publish(events, config.confirmTimeout());
    } catch (RuntimeException | Error e) {
      Spans.endSends(spans, null, e);
      throw e;
    }
    Spans.endSends(spans, result, null);
    List<Row> confirmed = BatchLists.confirmed(rows, result);
    List<Event> sent =
        confirmed.size() == rows.size() ? events : BatchLists.map(confirmed, Row::event);
    once.listener().published(sent);
    for (Row r : confirmed) {
      unbound.published(r.event().destination());
    }
    markFailed(c, rows, result);
    // the confirmed rows marked sent and the commit: one round trip where the store can
    dialect
        .store()
        .markSentAndCommit(c, BatchLists.map(confirmed, Row::id), config.clock().instant());
    if (inDatabase != null) {
      inDatabase.publishedInTransaction();
    }
    if (!confirmed.isEmpty()) {
      once.listener()
          .markedSent(
              sent, Duration.between(confirmed.get(0).createdAt(), config.clock().instant()));
    }
    return confirmed.size();
  }

  /**
   * Begins the batch's transaction, locks partitions that hold the oldest due rows and claims their
   * rows: all that no other relay holds, or a random share when several relays run in its process
   * and it is {@link #behind}, so that they publish side by side; relays in other processes get
   * what is left. One round trip where it can ({@code StoreDialect#claimRelayBatch}).
   */
  private List<Row> claim(Connection c, Set<String> keyOrdered) throws SQLException {
    // Losing this transaction's commit in a database crash only means publishing again.
    RelayClaim claim =
        dialect
            .store()
            .claimRelayBatch(
                c,
                once.relayWaits(),
                config.clock().instant(),
                config.relayBatchSize(),
                behind ? once.runningRelays() : 1,
                keyOrdered);
    RelayPartitions partitions = claim.partitions();
    contended = partitions.due() > 0 && partitions.locked().isEmpty();
    behind = claim.rows().size() >= config.relayBatchSize();
    more = partitions.due() > partitions.locked().size() || behind;
    List<Row> rows = new ArrayList<>(claim.rows().size());
    for (OutboxRow r : claim.rows()) {
      Delivery d = MessageDecoder.decode(r.message(), 1, false, r.id());
      String malformed = d.isMalformed() ? d.malformed() : notPublishable(d.event());
      String orderedKey = KeyOrderBatch.orderedKey(r.message(), keyOrdered);
      rows.add(new Row(r.id(), d.event(), r.createdAt(), r.attempts(), malformed, orderedKey));
    }
    return rows;
  }

  /** Why the transport cannot carry {@code event} (a row written before the check), or null. */
  private String notPublishable(Event event) {
    if (once.publishLimits() == null) {
      return null;
    }
    try {
      once.publishLimits().checkPublishable(event);
      return null;
    } catch (InvalidEventException e) {
      return e.getMessage();
    }
  }

  /**
   * Parks the rows that do not decode (written by hand, by another service, by an older version),
   * each with a {@code (relay)} dead letter, and returns the others: a broken row never stops the
   * rows behind it, nor rolls back their batch.
   */
  private List<Row> parkMalformed(Connection c, List<Row> rows) throws SQLException {
    List<Row> good = new ArrayList<>(rows.size());
    Instant now = config.clock().instant();
    for (Row row : rows) {
      if (row.malformed() == null) {
        good.add(row);
        continue;
      }
      String reason = "malformed: " + row.malformed();
      dialect.store().parkOutbox(c, row.id(), reason);
      deadLetters.write(
          c,
          DeadLetterWriter.RELAY,
          row.event(),
          row.attempts() + 1,
          row.createdAt(),
          Failure.malformed(row.malformed()),
          now);
      log.warn("relay: parked outbox row {} that does not decode: {}", row.id(), row.malformed());
    }
    return good;
  }

  /**
   * A refused row waits with a doubling, jittered backoff (so a poison row neither pins a CPU nor
   * blocks the other rows of its partition); after {@code relayRetry.maxAttempts} it is parked: it
   * stays unsent, is never claimed again, and a dead letter with consumer {@code (relay)} says why.
   * A lost one (the connection went away before the broker answered) is left as it is, uncharged:
   * the next batch publishes it again.
   */
  private void markFailed(Connection c, List<Row> rows, PublishResult result) throws SQLException {
    Instant now = config.clock().instant();
    int lostCount = 0;
    String lostReason = null;
    for (Map.Entry<Integer, String> f : result.failures().entrySet()) {
      Row row = rows.get(f.getKey());
      String reason = f.getValue();
      once.listener().publishFailed(row.event(), reason);
      if (result.isLost(f.getKey())) {
        if (lostCount++ == 0) {
          lostReason = reason;
        }
        continue;
      }
      if (result.isUnroutable(f.getKey())) {
        unbound.defer(c, row.id(), row.event().destination(), row.createdAt(), reason, now);
        continue;
      }
      int attempts = row.attempts() + 1;
      if (attempts >= config.relayRetry().maxAttempts()) {
        park(c, row, attempts, reason, now);
        continue;
      }
      Instant next = now.plus(config.relayRetry().delay(attempts));
      try (LogContext mdc = LogContext.of(null, row.event())) {
        log.warn(
            "relay: broker did not take event {}: {}; attempt {} of {}, next after {}",
            row.event().id(),
            reason,
            attempts,
            config.relayRetry().maxAttempts(),
            next);
      }
      dialect.store().markPublishFailed(c, row.id(), reason, next);
    }
    lost = lostCount == 0 ? Lost.NONE : new Lost(lostCount, lostReason);
  }

  private void park(Connection c, Row row, int attempts, String reason, Instant now)
      throws SQLException {
    dialect.store().parkOutbox(c, row.id(), reason);
    Failure failure = Failure.refused(reason);
    deadLetters.write(
        c, DeadLetterWriter.RELAY, row.event(), attempts, row.createdAt(), failure, now);
    try (LogContext mdc = LogContext.of(null, row.event())) {
      log.warn(
          "relay: parked event {} as a dead letter after {} refused publishes: {}",
          row.event().id(),
          attempts,
          reason);
    }
  }

  @Override
  public Relay start() {
    if (thread.started()) {
      return this;
    }
    int extra = once.extraPerPublish();
    once.starting(
        this,
        new PoolNeeds.Need(
            extra == 0 ? "a relay" : "a relay (2: the table queue's rows on a second)",
            1,
            extra,
            0));
    if (thread.start(this::loop)) {
      once.relayRunning(true);
      once.started(this);
    }
    return this;
  }

  private void loop() {
    Wakeup wakeup = once.outboxWakeup();
    Pause pause = new Pause();
    Outage outage = new Outage(log, "relay");
    while (thread.running()) {
      long seen = wakeup.generation();
      try {
        int sent = runOnce();
        Lost lostNow = lost;
        if (lostNow.count() > 0) {
          outage.failed(
              "{} events lost their broker connection before a confirm; they are published again,"
                  + " not charged: {}",
              lostNow.count(),
              lostNow.reason());
          if (sent == 0) { // nothing reached the broker: do not hammer it
            pause.take();
            continue;
          }
        } else {
          outage.ended();
        }
        pause.reset();
        if (sent > 0 && more) {
          // a commit woke only this relay (see Wakeup): wake another to take what this one left
          wakeup.signal();
        }
        if (sent == 0) {
          // rows held by another relay free up when its batch commits: look again soon
          wakeup.await(seen, contended ? CONTENDED_WAIT : config.relayIdleWait());
        } else if (!more && !heldBack && lostNow.count() == 0) {
          // the batch took every due row it saw: a commit since `seen` ends the wait at once, and
          // a claim now would find nothing (at a paced rate, one claim more per event)
          wakeup.await(seen, config.relayIdleWait());
        }
      } catch (InterruptedException e) {
        return;
      } catch (Throwable e) { // an Error here is a (simulated) crash: the batch was rolled back
        if (!thread.running()) {
          return;
        }
        if (e instanceof Error) {
          log.warn(
              "relay batch crashed, rows stay pending; next try in {}: {}",
              pause.next(),
              e.toString());
        } else {
          outage.failed(
              "batch failed, rows stay pending; trying again, first in {}, then at most every {}:"
                  + " {}",
              pause.next(),
              Pause.MAX,
              e.toString());
        }
        pause.take();
      }
    }
  }

  @Override
  public void close() {
    if (thread.stop()) {
      once.relayRunning(false);
    }
    once.stopped(this);
  }
}
