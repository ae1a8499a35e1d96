package dev.once.rabbitmq;

import java.net.URI;
import java.time.Duration;

/**
 * The validated settings of a {@link RabbitTransport}. Built by {@link RabbitTransportBuilder}.
 *
 * @param uri the broker, {@code amqp://user:password@host:port/vhost}
 * @param namePrefix put before every exchange and queue name this transport declares
 * @param prefetch how many unacknowledged deliveries the broker hands one receiver at a time
 * @param deliveryLimit deliveries of one message before the quorum queue dead-letters it
 * @param singleActiveConsumer whether only one receiver of a consumer group gets deliveries at a
 *     time (per-key order, one worker's throughput)
 * @param publisherChannels confirm channels kept for publishing; concurrent relays share them
 * @param contentType the {@code content-type} property of events without a {@code content-type}
 *     header
 * @param maxNackDelay the longest a negatively acknowledged delivery is held before it is returned
 * @param connectionTimeout how long opening a connection may take
 * @param recoveryInitialDelay the first wait before reconnecting after a lost connection
 * @param recoveryMaxDelay the cap of the doubling wait between reconnection attempts
 */
public record RabbitConfig(
    URI uri,
    String namePrefix,
    int prefetch,
    int deliveryLimit,
    boolean singleActiveConsumer,
    int publisherChannels,
    String contentType,
    Duration maxNackDelay,
    Duration connectionTimeout,
    Duration recoveryInitialDelay,
    Duration recoveryMaxDelay) {

  /** The URI without its password, for messages and logs. */
  public String safeUri() {
    String info = uri.getUserInfo();
    String user = info == null ? "" : info.split(":", 2)[0] + "@";
    int port = uri.getPort() < 0 ? 5672 : uri.getPort();
    String path = uri.getPath() == null || uri.getPath().isEmpty() ? "/" : uri.getPath();
    return uri.getScheme() + "://" + user + uri.getHost() + ":" + port + path;
  }
}
