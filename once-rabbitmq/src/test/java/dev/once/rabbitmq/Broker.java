package dev.once.rabbitmq;

import dev.once.test.RabbitVhosts;
import dev.once.test.Services;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The real RabbitMQ at 127.0.0.1:5672 and its {@code rabbitmqctl}. Tests run in a virtual host of
 * their own, deleted afterwards, so destructive commands stay within it where RabbitMQ allows.
 */
public final class Broker {
  private static final AtomicInteger counter = new AtomicInteger();

  private Broker() {}

  /** Skips the test when no broker listens (fails in CI, where .ci/run starts it). */
  public static void require() {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", 5672), 1_000);
    } catch (IOException e) {
      Services.unavailable(
          "RabbitMQ",
          "127.0.0.1:5672",
          e,
          "rabbitmq-server -detached && rabbitmqctl await_startup");
    }
  }

  /** A new virtual host that guest may use. */
  static String newVhost() {
    require();
    String vhost = "once-test-" + ProcessHandle.current().pid() + "-" + counter.incrementAndGet();
    RabbitVhosts.create(vhost);
    return vhost;
  }

  /** Deleted at the next {@link #newVhost} or when the JVM exits (see {@link RabbitVhosts}). */
  static void deleteVhost(String vhost) {
    if (vhost != null) {
      RabbitVhosts.delete(vhost);
    }
  }

  /**
   * Messages in {@code queue} of the broker at {@code uri}, ready to be delivered: with its
   * consumers closed (their unacknowledged messages back in the queue), what could still be
   * redelivered.
   */
  static long messagesIn(String uri, String queue) {
    com.rabbitmq.client.ConnectionFactory factory = new com.rabbitmq.client.ConnectionFactory();
    try {
      factory.setUri(uri);
      if (factory.getVirtualHost().isEmpty()) {
        factory.setVirtualHost(
            "/"); // amqp://host:port/ names the vhost "", the transport means "/"
      }
      try (com.rabbitmq.client.Connection c = factory.newConnection();
          com.rabbitmq.client.Channel ch = c.createChannel()) {
        return ch.messageCount(queue);
      }
    } catch (Exception e) {
      throw new IllegalStateException("message count of " + queue + ": " + e, e);
    }
  }

  /**
   * Messages in {@code queue} of {@code vhost} not acknowledged yet, ready or delivered: while its
   * consumers run, zero means nothing is left that could be delivered again, so a test counts what
   * happened instead of waiting for late redeliveries. From {@code rabbitmqctl} (about a second).
   */
  static long messagesUnsettled(String vhost, String queue) {
    return messagesIn(
        ctl("list_queues", "-p", vhost, "-q", "--no-table-headers", "name", "messages"),
        queue,
        "vhost " + vhost);
  }

  /**
   * The {@code messages} column of {@code queue} in {@code rabbitmqctl list_queues name messages}.
   */
  static long messagesIn(String listQueues, String queue, String where) {
    for (String line : listQueues.split("\n")) {
      String[] cols = line.strip().split("\t");
      if (cols.length == 2 && cols[0].equals(queue)) {
        return Long.parseLong(cols[1].strip());
      }
    }
    throw new AssertionError("no queue " + queue + " in " + where + ": " + listQueues);
  }

  /** The vhost of a transport's URI ({@code amqp://host:port/vhost}). */
  static String vhostOf(RabbitTransport transport) {
    String path = transport.config().uri().getPath();
    return path == null || path.length() <= 1 ? "/" : path.substring(1);
  }

  static String uri(String vhost) {
    return uri(5672, vhost);
  }

  /** The URI of {@code vhost} through a proxy (or anything else) listening on {@code port}. */
  static String uri(int port, String vhost) {
    return "amqp://guest:guest@127.0.0.1:"
        + port
        + "/"
        + URLEncoder.encode(vhost, StandardCharsets.UTF_8);
  }

  /** Runs rabbitmqctl and returns its output; fails the test if it fails. */
  static String ctl(String... args) {
    List<String> command = new ArrayList<>(List.of("rabbitmqctl"));
    command.addAll(List.of(args));
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      if (!p.waitFor(90, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new AssertionError(command + " took more than 90 s");
      }
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (p.exitValue() != 0) {
        throw new AssertionError(command + " exited " + p.exitValue() + ": " + out);
      }
      return out;
    } catch (IOException e) {
      throw new AssertionError("cannot run " + command + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted: " + command, e);
    }
  }
}
