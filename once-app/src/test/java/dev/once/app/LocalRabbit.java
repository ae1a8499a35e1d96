package dev.once.app;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import dev.once.rabbitmq.RabbitTransport;
import dev.once.test.RabbitVhosts;
import dev.once.test.Services;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A virtual host of its own on the local RabbitMQ (127.0.0.1:5672), deleted on close, so that the
 * demo's queue names (orders.warehouse) never meet another test's. Skipped when RabbitMQ is down,
 * except in CI.
 */
public final class LocalRabbit implements AutoCloseable {
  private static final AtomicInteger counter = new AtomicInteger();
  private final String vhost;

  private LocalRabbit(String vhost) {
    this.vhost = vhost;
  }

  public static LocalRabbit vhost(String name) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", 5672), 1_000);
    } catch (IOException e) {
      Services.unavailable(
          "RabbitMQ",
          "127.0.0.1:5672",
          e,
          "rabbitmq-server -detached && rabbitmqctl await_startup");
    }
    String vhost =
        "once-" + name + "-" + ProcessHandle.current().pid() + "-" + counter.incrementAndGet();
    RabbitVhosts.create(vhost);
    return new LocalRabbit(vhost);
  }

  public String uri() {
    return "amqp://guest:guest@127.0.0.1:5672/" + vhost;
  }

  /** The transport as the CLI opens it (same queue arguments: delivery limit 10 000). */
  public RabbitTransport transport() {
    return RabbitTransport.builder().uri(uri()).prefetch(32).deliveryLimit(10_000).build();
  }

  /**
   * Publishes each message to the destination's exchange and rejects it from the group's queue
   * without requeue, as a careless consumer would: RabbitMQ dead-letters them itself.
   */
  public void rejectIntoDeadLetterQueue(
      String destination, String group, AMQP.BasicProperties props, String... bodies)
      throws Exception {
    try (RabbitTransport t = transport();
        Connection c = connection();
        Channel ch = c.createChannel()) {
      t.declare(destination, group);
      String queue = t.queueName(destination, group);
      for (String body : bodies) {
        ch.basicPublish(
            t.exchangeName(destination), "k", props, body.getBytes(StandardCharsets.UTF_8));
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (ch.messageCount(queue) < bodies.length && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      for (int i = 0; i < bodies.length; i++) {
        ch.basicReject(ch.basicGet(queue, false).getEnvelope().getDeliveryTag(), false);
      }
      String dlq = queue + ".dead-letter";
      while (ch.messageCount(dlq) < bodies.length && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
    }
  }

  public Connection connection() throws Exception {
    ConnectionFactory factory = new ConnectionFactory();
    factory.setUri(uri());
    return factory.newConnection();
  }

  /** Messages ready in {@code queue}. */
  public long count(String queue) throws Exception {
    try (Connection c = connection();
        Channel ch = c.createChannel()) {
      return ch.messageCount(queue);
    }
  }

  @Override
  public void close() {
    RabbitVhosts.delete(vhost);
  }
}
