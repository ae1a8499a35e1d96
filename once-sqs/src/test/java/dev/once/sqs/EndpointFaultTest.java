package dev.once.sqs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.Consumer;
import dev.once.Event;
import dev.once.EventId;
import dev.once.Once;
import dev.once.Relay;
import dev.once.test.TestDatabase;
import dev.once.testkit.TcpProxy;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;

/**
 * SQS itself misbehaving under a running relay and consumer, through a {@link TcpProxy} in front of
 * the endpoint: every connection cut (reset) while events flow, then the endpoint silent (a stall:
 * open connections and new ones get no answer) and back. The pipeline gets over each by itself:
 * every event processed once, none dead-lettered, the outbox sent.
 */
class EndpointFaultTest {
  private static final int EVENTS = 300;
  private TestDatabase db;
  private TcpProxy proxy;
  private SqsAsyncClient client;
  private SqsTransport transport;

  @BeforeEach
  void open() {
    db = TestDatabase.embedded();
    db.execute("CREATE TABLE endpoint_effects (event_id varchar(200) NOT NULL)");
    proxy = TcpProxy.to("127.0.0.1", Sqs.endpoint().getPort());
    client = Sqs.newClient(URI.create("http://127.0.0.1:" + proxy.port()));
    transport =
        Sqs.transport()
            .client(client)
            .visibilityTimeout(Duration.ofSeconds(2))
            .requestTimeout(Duration.ofSeconds(10))
            .build();
  }

  @AfterEach
  void close() {
    transport.close();
    client.close();
    proxy.close();
    db.close();
  }

  @Test
  void cutConnectionsAndAStalledEndpointEndInEveryEventProcessedOnce() throws Exception {
    String dest = "endpoint-" + System.nanoTime();
    try (Once once =
            Once.builder()
                .dataSource(db.dataSource())
                .transport(transport)
                .destinations(dest)
                .relayIdleWait(Duration.ofMillis(100))
                .confirmTimeout(Duration.ofSeconds(5))
                .build();
        Consumer consumer =
            once.consumer("g")
                .subscribe(
                    dest,
                    (tx, e) -> tx.update("INSERT INTO endpoint_effects VALUES (?)", e.id().value()))
                .workers(2)
                .idleWait(Duration.ofMillis(200))
                .build()
                .start();
        Relay relay = once.newRelay()) {
      relay.start();
      int cuts = 0;
      for (int i = 0; i < EVENTS; i += 30) {
        int from = i;
        once.useTransaction(
            tx -> {
              for (int j = from; j < from + 30; j++) {
                tx.publish(Event.of(EventId.of("paid", j), dest, "k" + (j % 7), "T", "{}"));
              }
            });
        if (i % 90 == 0) {
          cuts += proxy.cut(); // SQS's connections reset under the relay's sends and the polls
        }
        await(() -> effects() >= from, "the events before these processed");
      }
      proxy.partition(); // the endpoint stalls: no answer on open or new connections
      long stalledAt = System.nanoTime();
      await(() -> System.nanoTime() - stalledAt > 3_000_000_000L, "a stall of 3 s");
      proxy.heal();
      await(() -> effects() >= EVENTS && unsent(dest) == 0, "every event processed");
      System.out.printf("EndpointFaultTest: %d connections cut%n", cuts);
    }
    assertThat(effects()).isEqualTo(EVENTS);
    assertThat(db.count("SELECT count(DISTINCT event_id) FROM endpoint_effects")).isEqualTo(EVENTS);
    assertThat(db.count("SELECT count(*) FROM once_inbox WHERE consumer_id = 'g'"))
        .isEqualTo(EVENTS);
    assertThat(db.count("SELECT count(*) FROM once_dead_letter WHERE destination = ?", dest))
        .isZero();
  }

  private long effects() {
    return db.count("SELECT count(*) FROM endpoint_effects");
  }

  private long unsent(String dest) {
    return db.count(
        "SELECT count(*) FROM once_outbox WHERE destination = ? AND sent_at IS NULL", dest);
  }

  private static void await(BooleanSupplier done, String what) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
    while (!done.getAsBoolean()) {
      assertThat(System.nanoTime()).as("within 90 s: " + what).isLessThan(deadline);
      TimeUnit.MILLISECONDS.sleep(50);
    }
  }
}
