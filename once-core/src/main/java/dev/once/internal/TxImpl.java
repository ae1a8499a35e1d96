package dev.once.internal;

import dev.once.Event;
import dev.once.InvalidEventException;
import dev.once.StoreException;
import dev.once.Tracing;
import dev.once.Tx;
import dev.once.UnknownDestinationException;
import dev.once.internal.postgres.PostgresNotifier;
import dev.once.internal.postgres.PostgresStore;
import dev.once.jdbc.Channel;
import dev.once.jdbc.Dialect;
import dev.once.jdbc.Sql;
import dev.once.spi.PublishLimits;
import dev.once.spi.RawMessage;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A {@link Tx} over one connection whose transaction somebody else commits. */
public final class TxImpl implements Tx {
  private static final Logger log = LoggerFactory.getLogger(TxImpl.class);

  private final Connection connection;
  private final Dialect dialect;
  private final Set<String> destinations;
  private final int partitions;
  private final PublishLimits limits;
  private final Tracing tracing;

  /**
   * The events written, in order: none, then one (most transactions publish one event), then a list
   * of their own; made as they come, not for every transaction.
   */
  private List<Event> published = List.of();

  /** Where {@link #publish} enqueues an event itself, instead of an outbox row; null: never. */
  private final ProducerQueue queue;

  /**
   * The id of the first event enqueued through {@link #queue} and, from the second on, the ids of
   * all of them: one copy each per transaction. A set only for a transaction that enqueues two.
   */
  private String firstEnqueued;

  private Set<String> enqueuedIds;

  private int outboxRows;

  /**
   * Who may have this transaction carry the outbox's notification to other processes (see {@link
   * PostgresNotifier#claim()}); null: it carries none.
   */
  private PostgresNotifier notifier;

  /** What {@link #notifier} claimed for this transaction: -1 none. */
  private long notice = -1;

  private Sql statements;
  private HeldStatements.Held held;
  private String sender;
  private int newer;
  private int stale;

  public TxImpl(Connection connection, Dialect dialect, Set<String> destinations, int partitions) {
    this(connection, dialect, destinations, partitions, null);
  }

  /** With the transport's limits that {@link #publish} checks (may be null: none). */
  public TxImpl(
      Connection connection,
      Dialect dialect,
      Set<String> destinations,
      int partitions,
      PublishLimits limits) {
    this(connection, dialect, destinations, partitions, limits, Tracing.NONE);
  }

  /** With the tracing hook that {@link #publish} gives the caller's trace context to. */
  public TxImpl(
      Connection connection,
      Dialect dialect,
      Set<String> destinations,
      int partitions,
      PublishLimits limits,
      Tracing tracing) {
    this(connection, dialect, destinations, partitions, limits, tracing, null);
  }

  /**
   * With the transport that takes the events in this transaction ({@link ProducerQueue}; null:
   * every event goes to the outbox).
   */
  public TxImpl(
      Connection connection,
      Dialect dialect,
      Set<String> destinations,
      int partitions,
      PublishLimits limits,
      Tracing tracing,
      ProducerQueue queue) {
    this(connection, dialect, destinations, partitions, limits, tracing, queue, null);
  }

  /**
   * With the statements of {@link #update} made once for every transaction of an instance ({@link
   * Sql} holds nothing of a transaction; null: one made at first use).
   */
  public TxImpl(
      Connection connection,
      Dialect dialect,
      Set<String> destinations,
      int partitions,
      PublishLimits limits,
      Tracing tracing,
      ProducerQueue queue,
      Sql statements) {
    this.statements = statements;
    this.queue = queue;
    this.tracing = tracing;
    this.limits = limits;
    this.connection = connection;
    this.dialect = dialect;
    this.destinations = destinations;
    this.partitions = partitions;
  }

  /**
   * Lets this transaction carry a notification of the outbox channel from {@code sender} when
   * {@code notifier} says one is due: sent with its first outbox row, in the same round trip. A
   * null notifier: none.
   */
  public void carryNotifications(PostgresNotifier notifier, String sender) {
    this.notifier = notifier;
    this.sender = sender;
  }

  /**
   * Runs {@link #update} and the outbox rows by the statements {@code held} for this transaction's
   * connection ({@link HeldStatements}); null: each prepared for its use.
   */
  public void holdStatements(HeldStatements.Held held) {
    this.held = held;
  }

  /**
   * The ticket of the notification this transaction carries, or -1 (see {@link
   * #carryNotifications}).
   */
  public long notice() {
    return notice;
  }

  @Override
  public Connection connection() {
    return connection;
  }

  /** The database's own binding (an {@code Instant} as its columns hold one), made at first use. */
  private Sql statements() {
    if (statements == null) {
      statements = new Sql(dialect.flavour());
    }
    return statements;
  }

  @Override
  public int update(String sql, Object... params) {
    try {
      return held == null
          ? statements().update(connection, sql, params)
          : held.update(connection, statements(), sql, params);
    } catch (SQLException e) {
      throw new StoreException("update '" + abbreviate(sql) + "'", e);
    }
  }

  @Override
  public boolean publish(Event event) {
    if (!destinations.contains(event.destination())) {
      throw new UnknownDestinationException(event.destination(), destinations);
    }
    checkReservedHeaders(event);
    if (limits != null) {
      limits.checkPublishable(event);
    }
    if (tracing == Tracing.NONE) {
      return insert(event);
    }
    Map<String, String> context = new HashMap<>(4);
    Tracing.Span span = tracing.publish(event, context);
    try {
      return insert(context.isEmpty() ? event : withContext(event, context));
    } catch (RuntimeException e) {
      span.error(e);
      throw e;
    } finally {
      span.end();
    }
  }

  /** The event with the trace context's headers added; its own headers win (a foreign context). */
  private static Event withContext(Event event, Map<String, String> context) {
    if (event.headers().isEmpty()) {
      return event.withHeaders(context);
    }
    Map<String, String> headers = new HashMap<>(context);
    headers.putAll(event.headers());
    return event.withHeaders(headers);
  }

  private boolean insert(Event event) {
    if (queue != null) {
      if (isEnqueued(event.id().value())) {
        log.debug("event {} is already enqueued by this transaction: not again", event.id());
        return false;
      }
      try {
        if (queue.enqueue(connection, event)) {
          enqueued(event.id().value());
          add(event);
          return true;
        }
      } catch (SQLException e) {
        throw new StoreException("enqueue event " + event.id(), e);
      }
    }
    return insertOutbox(event);
  }

  private boolean isEnqueued(String id) {
    return enqueuedIds != null ? enqueuedIds.contains(id) : id.equals(firstEnqueued);
  }

  private void enqueued(String id) {
    if (firstEnqueued == null) {
      firstEnqueued = id;
      return;
    }
    if (enqueuedIds == null) {
      enqueuedIds = new HashSet<>();
      enqueuedIds.add(firstEnqueued);
    }
    enqueuedIds.add(id);
  }

  private void add(Event event) {
    if (published.isEmpty()) {
      published = List.of(event);
      return;
    }
    if (!(published instanceof ArrayList)) {
      published = new ArrayList<>(published);
    }
    published.add(event);
  }

  private boolean insertOutbox(Event event) {
    try {
      boolean written;
      if (notifier != null && (notice = notifier.claim()) >= 0) {
        notifier = null; // one per transaction
        int partition = event.partition(partitions);
        if (dialect.store() instanceof PostgresStore store) { // one round trip for both
          written =
              store.insertOutboxNotifying(connection, event, partition, Channel.OUTBOX, sender);
        } else {
          written = dialect.store().insertOutbox(connection, event, partition);
          dialect.flavour().notify(connection, Channel.OUTBOX, sender);
        }
      } else {
        notifier = null; // only the first row may carry it: a transaction asks once
        int partition = event.partition(partitions);
        written =
            held == null
                ? dialect.store().insertOutbox(connection, event, partition)
                : held.insertOutbox(connection, dialect.store(), event, partition);
      }
      if (written) {
        outboxRows++;
        add(event);
      } else {
        log.debug(
            "event {} is already in the outbox: not written again (same id, same event)",
            event.id());
      }
      return written;
    } catch (SQLException e) {
      throw new StoreException("insert outbox row for event " + event.id(), e);
    }
  }

  private static final List<String> RESERVED_HEADERS =
      List.of(RawMessage.EVENT_ID, RawMessage.KEY, RawMessage.TYPE);

  /**
   * Refuses an event header that would say the id, key or type a second time: every transport
   * carries those in fields of their own, and a receiver finding one twice dead-letters the message
   * as malformed (its identity would be ambiguous).
   */
  static void checkReservedHeaders(Event event) {
    if (event.headers().isEmpty()) {
      return; // most events: nothing to look for
    }
    for (String name : RESERVED_HEADERS) {
      if (event.headers().containsKey(name)) {
        throw new InvalidEventException(
            "event.headers",
            "'"
                + name
                + "' is Once's own header, carried from the event's "
                + (name.equals(RawMessage.EVENT_ID)
                    ? "id"
                    : name.equals(RawMessage.KEY) ? "key" : "type")
                + ": set that instead (event "
                + event.id()
                + ")");
      }
    }
  }

  @Override
  public boolean applyIfNewer(String entity, String id, long version) {
    try {
      boolean isNewer = dialect.store().applyIfNewer(connection, entity, id, version);
      if (isNewer) {
        newer++;
      } else {
        stale++;
      }
      return isNewer;
    } catch (SQLException e) {
      throw new StoreException("apply version " + version + " of " + entity + " " + id, e);
    }
  }

  /** Whether every {@link #applyIfNewer} call found the version not newer (and there was one). */
  public boolean isStale() {
    return stale > 0 && newer == 0;
  }

  /** The events this transaction wrote: to the outbox, or enqueued ({@link ProducerQueue}). */
  public List<Event> published() {
    return published;
  }

  /** How many of {@link #published} went to the outbox: a relay has to publish them. */
  public int outboxRows() {
    return outboxRows;
  }

  /** How many of {@link #published} were enqueued: the receivers are to be woken after commit. */
  public int enqueued() {
    return published.size() - outboxRows;
  }

  private static String abbreviate(String sql) {
    String flat = sql.strip().replaceAll("\\s+", " ");
    return flat.length() <= 60 ? flat : flat.substring(0, 57) + "...";
  }
}
