package dev.once.sqs.embedded;

import java.net.InetSocketAddress;
import java.net.URI;
import org.elasticmq.rest.sqs.SQSRestServer;
import org.elasticmq.rest.sqs.SQSRestServerBuilder;

/**
 * An SQS-compatible server (ElasticMQ) in this JVM, on a free loopback port, keeping its queues in
 * memory: for tests and for {@code once demo --transport sqs} with nothing installed. Standard and
 * FIFO queues, FIFO deduplication and visibility timeouts behave as SQS's do; a client talks to it
 * through {@link #endpoint()} with any region and any static credentials.
 *
 * <pre>{@code
 * try (EmbeddedSqs sqs = EmbeddedSqs.start()) {
 *   SqsTransport t = SqsTransport.builder().endpoint(sqs.endpoint()).build();
 * }
 * }</pre>
 */
public final class EmbeddedSqs implements AutoCloseable {
  private static final String SHUTDOWN_HOOK = "pekko.coordinated-shutdown.run-by-jvm-shutdown-hook";
  private final SQSRestServer server;
  private final URI endpoint;

  private EmbeddedSqs(SQSRestServer server, URI endpoint) {
    this.server = server;
    this.endpoint = endpoint;
  }

  /** Starts a server on a free port of 127.0.0.1 and waits until it answers. */
  public static EmbeddedSqs start() {
    // The server is stopped by its owner (close(), or the owner's shutdown hook); left on, Pekko's
    // own JVM hook, registered lazily while the server stops, warns "Could not addJvmShutdownHook"
    // when that stop runs inside a JVM shutdown. Pekko reads system properties over its defaults.
    if (System.getProperty(SHUTDOWN_HOOK) == null) {
      System.setProperty(SHUTDOWN_HOOK, "off");
    }
    SQSRestServer server =
        SQSRestServerBuilder.withInterface("127.0.0.1").withDynamicPort().start();
    InetSocketAddress bound = server.waitUntilStarted().localAddress();
    return new EmbeddedSqs(server, URI.create("http://127.0.0.1:" + bound.getPort()));
  }

  /** Where the server answers the SQS API, e.g. {@code http://127.0.0.1:40213}. */
  public URI endpoint() {
    return endpoint;
  }

  /** Stops the server; its queues and messages are gone. */
  @Override
  public void close() {
    server.stopAndWait();
  }
}
