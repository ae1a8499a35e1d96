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
  private final SQSRestServer server;
  private final URI endpoint;

  private EmbeddedSqs(SQSRestServer server, URI endpoint) {
    this.server = server;
    this.endpoint = endpoint;
  }

  /** Starts a server on a free port of 127.0.0.1 and waits until it answers. */
  public static EmbeddedSqs start() {
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
