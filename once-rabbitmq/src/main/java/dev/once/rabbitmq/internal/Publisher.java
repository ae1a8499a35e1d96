package dev.once.rabbitmq.internal;

import dev.once.BrokerUnavailableException;
import dev.once.Event;
import dev.once.rabbitmq.RabbitConfig;
import dev.once.spi.PublishResult;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Publishes batches on a small pool of confirm channels: a relay thread borrows one for its batch,
 * so batches of different relays go out in parallel and each batch keeps its list order.
 */
public final class Publisher implements AutoCloseable {
  private final Connections connections;
  private final Topology topology;
  private final MessageCodec codec;
  private final RabbitConfig config;
  private final Semaphore permits;
  private final ConcurrentLinkedQueue<ConfirmChannel> idle = new ConcurrentLinkedQueue<>();

  public Publisher(Connections connections, Topology topology, RabbitConfig config) {
    this.connections = connections;
    this.topology = topology;
    this.config = config;
    this.codec = new MessageCodec(config.contentType());
    this.permits = new Semaphore(config.publisherChannels());
  }

  public PublishResult publish(List<Event> batch, Duration confirmTimeout) {
    if (batch.isEmpty()) {
      return PublishResult.allConfirmed(0);
    }
    List<String> exchanges = new ArrayList<>(batch.size());
    for (Event e : batch) {
      exchanges.add(topology.exchangeFor(e.destination()));
    }
    return publish(batch, exchanges, null, confirmTimeout);
  }

  /**
   * Publishes one event straight into one queue (the default exchange routes by queue name), so
   * that no other consumer group gets it: a replay for the group that failed.
   */
  public PublishResult publishToQueue(Event event, String queue, Duration confirmTimeout) {
    return publish(List.of(event), List.of(""), List.of(queue), confirmTimeout);
  }

  private PublishResult publish(
      List<Event> batch,
      List<String> exchanges,
      List<String> routingKeys,
      Duration confirmTimeout) {
    try {
      if (!permits.tryAcquire(confirmTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new BrokerUnavailableException(
            "RabbitMQ at " + config.safeUri(),
            "no publisher channel free within " + confirmTimeout,
            null);
      }
      try {
        return publishOn(borrow(), batch, exchanges, routingKeys, confirmTimeout);
      } finally {
        permits.release();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BrokerUnavailableException(
          "RabbitMQ at " + config.safeUri(), "publish interrupted", e);
    }
  }

  private PublishResult publishOn(
      ConfirmChannel channel,
      List<Event> batch,
      List<String> exchanges,
      List<String> routingKeys,
      Duration timeout)
      throws InterruptedException {
    try {
      return channel.publish(batch, exchanges, routingKeys, codec, timeout);
    } finally {
      if (channel.usable()) {
        idle.add(channel);
      } else {
        if (channel.closedForMissingExchange()) {
          topology.forgetExchanges();
        }
        channel.close();
      }
    }
  }

  private ConfirmChannel borrow() {
    ConfirmChannel ch;
    while ((ch = idle.poll()) != null) {
      if (ch.usable()) {
        return ch;
      }
      ch.close();
    }
    com.rabbitmq.client.Channel raw = connections.publishChannel();
    try {
      return new ConfirmChannel(raw);
    } catch (IOException e) {
      Topology.closeQuietly(raw);
      throw new BrokerUnavailableException(
          "RabbitMQ at " + config.safeUri(), "refused confirm mode: " + e, e);
    }
  }

  @Override
  public void close() {
    ConfirmChannel ch;
    while ((ch = idle.poll()) != null) {
      ch.close();
    }
  }
}
