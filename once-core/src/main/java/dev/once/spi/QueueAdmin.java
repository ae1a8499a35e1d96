package dev.once.spi;

import java.util.OptionalLong;

/**
 * A capability of a {@link Transport} that admin tools, demos and tests use: how many messages wait
 * for a consumer group, and discarding them.
 */
public interface QueueAdmin {

  /**
   * How many messages wait for {@code consumerId} (delivered but unacknowledged ones included), if
   * the broker can tell cheaply; empty otherwise (RabbitMQ counts only the ready ones).
   */
  OptionalLong depth(String destination, String consumerId);

  /** Discards every message waiting for {@code consumerId}: for demos and admin tools. */
  void purge(String destination, String consumerId);
}
