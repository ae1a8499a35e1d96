package dev.once.internal;

import dev.once.StoreException;
import dev.once.jdbc.Dialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Set;
import javax.sql.DataSource;

/**
 * The destinations some consumer group receives in key order ({@code once_ordered_destination}), as
 * this instance's relays know them: a key's outbox rows of such a destination wait behind one in
 * publish backoff or parked. An ordered consumer built here marks its destination (on any
 * transport) and is known at once; one built by another process is known at the next read, which a
 * relay makes when it is created and then at most every {@link #REFRESH}, before a batch: a relay
 * batch with nothing ordered runs the statements it ran before there were ordered consumers.
 */
public final class KeyOrderedDestinations {
  /** How long a read is trusted: an ordered consumer started elsewhere is known this late. */
  static final Duration REFRESH = Duration.ofSeconds(5);

  private final DataSource dataSource;
  private final Dialect dialect;
  private final Clock clock;
  private volatile Set<String> destinations = Set.of();

  /** Marked by this process: known whatever a read that began before the mark returns. */
  private final Set<String> marked = new HashSet<>();

  /** When the marks were last read; null before the first read. */
  private volatile Instant readAt;

  public KeyOrderedDestinations(DataSource dataSource, Dialect dialect, Clock clock) {
    this.dataSource = dataSource;
    this.dialect = dialect;
    this.clock = clock;
  }

  /** Records that {@code consumerGroup} receives {@code destination} in key order. */
  public void mark(String destination, String consumerGroup) {
    try (Connection c = dataSource.getConnection()) {
      dialect.store().markKeyOrdered(c, destination, consumerGroup, clock.instant());
    } catch (SQLException e) {
      throw new StoreException(
          "record that consumer " + consumerGroup + " receives " + destination + " in key order",
          e);
    }
    add(destination);
  }

  private synchronized void add(String destination) {
    marked.add(destination);
    Set<String> more = new HashSet<>(destinations);
    more.add(destination);
    destinations = Set.copyOf(more);
  }

  /**
   * Reads the marks on a connection of its own unless they were read already; when the store does
   * not answer, the next {@link #current} reads them.
   */
  public void load() {
    if (readAt != null) {
      return;
    }
    try (Connection c = dataSource.getConnection()) {
      read(c);
    } catch (SQLException | RuntimeException e) {
      // the store is not reachable now: the next batch reads them, or fails as it would anyway
    }
  }

  /**
   * The destinations in key order, read again on {@code c} (a relay's connection, outside its
   * batch's transaction) when the last read is older than {@link #REFRESH}.
   */
  public Set<String> current(Connection c) throws SQLException {
    Instant at = readAt;
    if (at == null || !clock.instant().isBefore(at.plus(REFRESH))) {
      read(c);
    }
    return destinations;
  }

  private void read(Connection c) throws SQLException {
    Instant now = clock.instant();
    Set<String> read = dialect.store().keyOrderedDestinations(c);
    synchronized (this) {
      Set<String> all = new HashSet<>(read);
      all.addAll(marked);
      destinations = Set.copyOf(all);
      readAt = now;
    }
  }
}
