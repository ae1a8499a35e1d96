package dev.once.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.BrokerUnavailableException;
import dev.once.OnceListener;
import dev.once.Relay;
import dev.once.RetryPolicy;
import dev.once.test.TestDatabase;
import dev.once.testkit.TcpProxy;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The relay's connection to RabbitMQ is lost in the middle of a publish, again and again: a proxy
 * of the test drops a published batch before the broker sees it and resets the connection (the
 * confirm never comes; the channel closes). That says nothing about the messages: they are
 * published again without being charged, so no healthy event is parked as a dead letter however
 * often it happens (with the relay's default of 10 attempts, 10 such losses parked them before).
 */
class PublishConnectionLostTest {
  private static final int EVENTS = 100;
  private static final int LOSSES = 20;

  /** The start of an AMQP basic.publish method: class 60, method 40. */
  private static final byte[] BASIC_PUBLISH = {0x00, 0x3C, 0x00, 0x28};

  private String vhost;
  private TestDatabase db;
  private TcpProxy proxy;
  private RabbitTransport transport;

  @BeforeEach
  void open() {
    vhost = Broker.newVhost();
    db = TestDatabase.embedded();
    proxy = TcpProxy.to("127.0.0.1", 5672);
    transport =
        RabbitTransport.builder()
            .uri(Broker.uri(proxy.port(), vhost))
            .recoveryBackoff(Duration.ofMillis(50), Duration.ofMillis(200))
            .build();
  }

  @AfterEach
  void close() {
    transport.close();
    proxy.close();
    db.close();
    Broker.deleteVhost(vhost);
  }

  @Test
  void twentyConnectionsLostMidPublishChargeNoRowAndParkNone() throws Exception {
    try (Flow flow =
        new Flow(
            db,
            transport,
            OnceListener.NOOP,
            b ->
                b.relayRetry( // the default 10 attempts, retried at once: charges show quickly
                    RetryPolicy.builder()
                        .maxAttempts(10)
                        .backoff(Duration.ofMillis(10), Duration.ofMillis(20))
                        .build()))) {
      proxy.cutWhenClientSends(BASIC_PUBLISH, LOSSES);
      flow.startConsumer();
      flow.produce(Flow.DESTINATION, EVENTS);

      // the relay a batch at a time, with a short pause after a failure (its own loop backs off
      // up to 5 s while every batch fails, which would only make this test slow)
      Relay relay = flow.once().newRelay();
      long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
      while ((proxy.armedCutsDone() < LOSSES || flow.pending() > 0)
          && db.count("SELECT count(*) FROM once_dead_letter") == 0
          && System.nanoTime() < deadline) {
        try {
          relay.runOnce();
        } catch (BrokerUnavailableException e) {
          Thread.sleep(20); // the connection is recovering
        }
      }

      assertThat(db.count("SELECT count(*) FROM once_dead_letter"))
          .as("events parked as dead letters")
          .isZero();
      assertThat(db.count("SELECT coalesce(max(attempts), 0) FROM once_outbox"))
          .as("attempts charged to an outbox row")
          .isZero();
      assertThat(proxy.armedCutsDone()).as("connections lost mid-publish").isEqualTo(LOSSES);
      flow.assertEachProcessedOnce(EVENTS, Duration.ofSeconds(60));
    }
  }
}
