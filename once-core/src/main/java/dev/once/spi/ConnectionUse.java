package dev.once.spi;

import javax.sql.DataSource;

/**
 * A capability of a {@link Transport} that takes connections from a data source (the table queue):
 * how many it takes from the pool Once runs on, so that Once can tell at {@code start()} how large
 * a pool its engines need, and refuse one too small to serve them.
 */
public interface ConnectionUse {
  /**
   * Connections of {@code dataSource} a publish takes besides the relay's own, which the relay
   * holds meanwhile: 0 when the transport publishes elsewhere or in the relay's transaction.
   */
  int perPublish(DataSource dataSource);

  /** Connections of {@code dataSource} held for good while receivers run (a {@code LISTEN}). */
  int heldWhileReceiving(DataSource dataSource);

  /** Connections of {@code dataSource} taken now and then to notify other processes. */
  int notifying(DataSource dataSource);
}
