package dev.once.bench.e2e;

import dev.once.Event;
import dev.once.EventId;
import java.io.IOException;
import java.util.List;
import java.util.Map;

/**
 * The broker as the hand-written pipeline (ceiling C) uses it: the same transport Once runs on,
 * through its own client. RabbitMQ through the AMQP client directly (a durable topic exchange per
 * destination, a quorum queue per group bound with {@code #}, as Once declares them; persistent
 * messages, a batch published then its confirms awaited; {@code basic.qos} of two batches, manual
 * acks); the table queue through its enqueue / claim / ack.
 */
interface HandBroker extends AutoCloseable {
  /** A message as the hand-written code sees it; {@code handle} settles it. */
  record Msg(
      String id, String destination, String key, String type, byte[] payload, Object handle) {
    Event event() {
      return new Event(new EventId(id), destination, key, type, payload, Map.of());
    }
  }

  /** One relay's way to publish: the whole batch, returning when every message is confirmed. */
  interface Publisher extends AutoCloseable {
    void publishConfirmed(List<Msg> batch) throws Exception;

    @Override
    void close();
  }

  /** One worker's receiver. */
  interface HandReceiver extends AutoCloseable {
    /** Up to {@code max} messages, waiting up to {@code waitMillis} for the first. */
    List<Msg> poll(int max, long waitMillis) throws InterruptedException;

    void ack(List<Msg> messages) throws IOException;

    @Override
    void close();
  }

  void declare(String destination, String group);

  void purge(String destination, String group);

  Publisher publisher() throws IOException;

  HandReceiver receiver(String destination, String group) throws IOException;

  /**
   * Waits until the {@code consumers} receivers of {@code destination} can all receive (on Kafka:
   * the group stable, every partition assigned), so that a run's clock does not time a group's
   * join.
   */
  default void awaitConsumers(String destination, int consumers) throws Exception {}

  /** What this broker's clients counted so far (on Kafka: produce requests, offset commits). */
  default Map<String, Long> counts() {
    return Map.of();
  }

  @Override
  void close();

  static HandBroker open(BenchEnv env, BenchSettings s) throws Exception {
    return switch (env.transportName()) {
      case "rabbitmq" -> new HandRabbit(env.amqp(), s.prefetch());
      case "kafka" -> new HandKafka(env.bootstrap(), env.kafkaPartitions(), s.batch());
      case "sqs", "sqs-fifo" -> new HandSqs(env.sqsRequests().client(), env.sqsFifo());
      default -> new HandTable(env.dataSource());
    };
  }
}
