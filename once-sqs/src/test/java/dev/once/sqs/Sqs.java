package dev.once.sqs;

import dev.once.spi.ForwardingTransport;
import dev.once.spi.Transport;
import dev.once.sqs.embedded.EmbeddedSqs;
import dev.once.testkit.TcpProxy;
import java.net.URI;
import java.time.Duration;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;

/**
 * The one in-process SQS server (ElasticMQ) of this test JVM and one SDK client for it, started on
 * first use and shared by every test class; tests keep apart by unique destination and group names.
 */
final class Sqs {
  private static EmbeddedSqs server;
  private static SqsAsyncClient client;

  private Sqs() {}

  static synchronized SqsAsyncClient client() {
    if (server == null) {
      server = EmbeddedSqs.start();
      client = newClient(server.endpoint());
      client.listQueues().join(); // loads the SDK and wakes the server before any test's timeout
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    client.close();
                    server.close();
                  }));
    }
    return client;
  }

  /** The embedded server's endpoint. */
  static URI endpoint() {
    client();
    return server.endpoint();
  }

  /**
   * A client of its own for {@code endpoint} (the server's, or a proxy's): a process's, closed when
   * it dies. Calls that get no answer end after 5 s, so a stalled connection is given up.
   */
  static SqsAsyncClient newClient(URI endpoint) {
    return SqsAsyncClient.builder()
        .endpointOverride(endpoint)
        .region(Region.US_EAST_1)
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("x", "x")))
        .overrideConfiguration(c -> c.apiCallAttemptTimeout(Duration.ofSeconds(5)))
        .build();
  }

  /** A proxy of a test's own in front of the embedded server. */
  static TcpProxy proxy() {
    return TcpProxy.to("127.0.0.1", endpoint().getPort());
  }

  /** The endpoint of the embedded server as reached through {@code proxy}. */
  static URI via(TcpProxy proxy) {
    return URI.create("http://127.0.0.1:" + proxy.port());
  }

  /**
   * A transport of {@code b} whose SDK client of its own reaches the embedded server through {@code
   * proxy}. Closing it closes the proxy first — SQS is gone for this process, so nothing it holds
   * is given back and its messages come back when their visibility runs out, as after a SIGKILL —
   * then the transport and the client.
   */
  static Transport through(TcpProxy proxy, SqsTransport.Builder b) {
    SqsAsyncClient own = newClient(via(proxy));
    SqsTransport transport = b.client(own).build();
    return new ForwardingTransport(transport) {
      @Override
      public void close() {
        proxy.close();
        transport.close();
        own.close();
      }
    };
  }

  /** A transport on the embedded server, with test timings: short long polls and visibility. */
  static SqsTransport.Builder transport() {
    return SqsTransport.builder()
        .client(client())
        .receiveWait(Duration.ofSeconds(1))
        .visibilityTimeout(Duration.ofSeconds(3));
  }
}
