package dev.once.rabbitmq;

import dev.once.Event;
import dev.once.rabbitmq.internal.Connections;
import dev.once.rabbitmq.internal.LostDeliveries;
import dev.once.rabbitmq.internal.MessageCodec;
import dev.once.rabbitmq.internal.Publisher;
import dev.once.rabbitmq.internal.RabbitDeadLetterReader;
import dev.once.rabbitmq.internal.RabbitReceiver;
import dev.once.rabbitmq.internal.Topology;
import dev.once.spi.BrokerDeadLetterReader;
import dev.once.spi.BrokerDeadLetters;
import dev.once.spi.DeliveryLimit;
import dev.once.spi.PublishLimits;
import dev.once.spi.PublishResult;
import dev.once.spi.QueueAdmin;
import dev.once.spi.QueueOrder;
import dev.once.spi.Receiver;
import dev.once.spi.Replay;
import dev.once.spi.Transport;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The RabbitMQ transport. A destination is a durable topic exchange; a consumer group is a durable
 * quorum queue {@code <destination>.<group>} bound to it, with a delivery limit and a dead-letter
 * exchange. Publishing is persistent, mandatory and confirmed: a message counts as published only
 * when the broker confirmed it and did not return it as unroutable. Receivers acknowledge manually,
 * after the consumer's commit; a delivery of a lost channel is never acknowledged on a new one.
 *
 * <pre>{@code
 * RabbitTransport rabbit = RabbitTransport.builder().uri("amqp://guest:guest@127.0.0.1:5672/").build();
 * Once once = Once.builder().dataSource(ds).transport(rabbit).destinations("orders").build();
 * }</pre>
 *
 * Capabilities: {@link PublishLimits} (AMQP short strings), {@link DeliveryLimit}, {@link Replay}
 * (into the group's own queue), {@link QueueAdmin} (purge; no cheap depth), {@link
 * BrokerDeadLetters} (the group's dead-letter queue), {@link QueueOrder} (a single active consumer
 * per ordered group). See docs/RABBITMQ.md for the guarantees at each boundary and the settings.
 */
public final class RabbitTransport
    implements Transport,
        PublishLimits,
        DeliveryLimit,
        Replay,
        QueueAdmin,
        BrokerDeadLetters,
        QueueOrder {
  private final RabbitConfig config;
  private final Connections connections;
  private final Topology topology;
  private final Publisher publisher;
  private final ScheduledExecutorService scheduler;
  private final MessageCodec codec;
  private final LostDeliveries lost = new LostDeliveries();
  private final Clock clock;

  RabbitTransport(RabbitConfig config, Clock clock) {
    this.config = config;
    this.clock = clock;
    this.connections = new Connections(config);
    this.topology = new Topology(connections, config);
    this.publisher = new Publisher(connections, topology, config);
    this.codec = new MessageCodec(config.contentType());
    this.scheduler =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "once-rabbitmq-nack");
              t.setDaemon(true);
              return t;
            });
  }

  public static RabbitTransportBuilder builder() {
    return new RabbitTransportBuilder();
  }

  /** A transport on {@code uri} with the default settings. */
  public static RabbitTransport create(String uri) {
    return builder().uri(uri).build();
  }

  public RabbitConfig config() {
    return config;
  }

  /** The queue name a consumer group of a destination uses. */
  public String queueName(String destination, String consumerId) {
    return topology.names().queue(destination, consumerId);
  }

  /** The exchange name of a destination. */
  public String exchangeName(String destination) {
    return topology.names().exchange(destination);
  }

  @Override
  public String name() {
    return "rabbitmq";
  }

  @Override
  public void declare(String destination, String consumerId) {
    topology.declare(destination, consumerId);
  }

  /**
   * Declares the group's queue with {@code x-single-active-consumer}: one receiver at a time,
   * across every process, gets its messages, in queue order, and the messages it held
   * unacknowledged when it went come back ahead of the rest to the next one. An ordered consumer
   * feeds its key lane that way (docs/ORDERING.md, "Ordered on RabbitMQ"). A queue that exists
   * without the argument is refused by the broker when it is declared ({@link TopologyException}):
   * use a new consumer group, or delete the queue once drained. The active receiver holds up to
   * {@code batch} deliveries unacknowledged when that is more than the prefetch: it takes a batch
   * for each worker of the consumer into one lane commit.
   */
  @Override
  public void deliverInQueueOrder(String destination, String consumerId, int batch) {
    topology.singleActiveConsumer(destination, consumerId, batch);
  }

  /**
   * Discards the ready messages waiting for {@code consumerId}; deliveries a receiver holds
   * unacknowledged are not touched. For demos and admin tools.
   */
  @Override
  public void purge(String destination, String consumerId) {
    topology.purge(destination, consumerId);
  }

  /** Refuses ids, types and header names over AMQP's 255-byte short strings, naming the field. */
  @Override
  public void checkPublishable(Event event) {
    codec.checkPublishable(event);
  }

  /** Into the group's own queue through the default exchange: no other group gets it. */
  @Override
  public PublishResult redeliver(Event event, String consumerId, Duration confirmTimeout) {
    topology.declare(event.destination(), consumerId);
    return publisher.publishToQueue(
        event, topology.names().queue(event.destination(), consumerId), confirmTimeout);
  }

  /** Whether the group's queue {@code <destination>.<group>} exists (a passive declare). */
  @Override
  public boolean hasGroup(String destination, String consumerId) {
    return topology.exists(destination, consumerId);
  }

  /** Ready messages in the group's dead-letter queue {@code <queue>.dead-letter}. */
  @Override
  public long count(String destination, String consumerId) {
    return topology.deadLettered(destination, consumerId);
  }

  /**
   * Reads the group's dead-letter queue {@code <queue>.dead-letter} with basic.get; what is read
   * and not acknowledged goes back with basic.nack when the reader is closed.
   */
  @Override
  public BrokerDeadLetterReader reader(String destination, String consumerId) {
    String queue = topology.names().queue(destination, consumerId);
    return new RabbitDeadLetterReader(
        connections, destination, topology.names().deadLetterQueue(queue));
  }

  @Override
  public int deliveryLimit() {
    return config.deliveryLimit();
  }

  /** Empty: RabbitMQ counts ready messages cheaply, not those delivered and unacknowledged. */
  @Override
  public OptionalLong depth(String destination, String consumerId) {
    return OptionalLong.empty();
  }

  @Override
  public PublishResult publish(List<Event> batch, Duration confirmTimeout) {
    return publisher.publish(batch, confirmTimeout);
  }

  @Override
  public Receiver receiver(String destination, String consumerId) {
    topology.declare(destination, consumerId);
    String queue = topology.names().queue(destination, consumerId);
    return new RabbitReceiver(
        connections,
        destination,
        queue,
        topology.prefetch(queue),
        config.maxNackDelay(),
        scheduler,
        lost,
        clock);
  }

  @Override
  public void close() {
    scheduler.shutdownNow();
    publisher.close();
    connections.close();
  }
}
