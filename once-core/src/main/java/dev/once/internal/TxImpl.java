package dev.once.internal;

import dev.once.Event;
import dev.once.StoreException;
import dev.once.Tx;
import dev.once.UnknownDestinationException;
import dev.once.spi.Dialect;
import dev.once.spi.PublishLimits;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
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
  private final List<Event> published = new ArrayList<>();
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
    this.limits = limits;
    this.connection = connection;
    this.dialect = dialect;
    this.destinations = destinations;
    this.partitions = partitions;
  }

  @Override
  public Connection connection() {
    return connection;
  }

  @Override
  public int update(String sql, Object... params) {
    try {
      return Jdbc.update(connection, sql, params);
    } catch (SQLException e) {
      throw new StoreException("update '" + abbreviate(sql) + "'", e);
    }
  }

  @Override
  public boolean publish(Event event) {
    if (!destinations.contains(event.destination())) {
      throw new UnknownDestinationException(event.destination(), destinations);
    }
    if (limits != null) {
      limits.checkPublishable(event);
    }
    try {
      boolean written =
          dialect.store().insertOutbox(connection, event, event.partition(partitions));
      if (written) {
        published.add(event);
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

  /** The events this transaction wrote to the outbox. */
  public List<Event> published() {
    return published;
  }

  private static String abbreviate(String sql) {
    String flat = sql.strip().replaceAll("\\s+", " ");
    return flat.length() <= 60 ? flat : flat.substring(0, 57) + "...";
  }
}
