package dev.once.sqs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.Consumer;
import dev.once.Event;
import dev.once.EventId;
import dev.once.Once;
import dev.once.OnceListener;
import dev.once.ReceivedEvent;
import dev.once.test.TestDatabase;
import dev.once.testkit.TcpProxy;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;

/**
 * An expired receipt handle at delete: worker A's batch outlives the message's visibility (A cannot
 * reach SQS to renew it), worker B receives the message again, and A, reachable again, commits and
 * deletes with its old receipt handle. Then: one effect, one marker (B's delivery is a {@code
 * DUPLICATE}, its handler never called), the message gone, no dead letter, no error loop.
 */
class ExpiredReceiptTest {
  private TestDatabase db;
  private TcpProxy proxy;
  private SqsAsyncClient clientA;
  private SqsTransport a;
  private SqsTransport b;

  @BeforeEach
  void open() {
    db = TestDatabase.embedded();
    db.execute("CREATE TABLE expired_effects (event_id varchar(200) NOT NULL)");
    proxy = TcpProxy.to("127.0.0.1", Sqs.endpoint().getPort());
    clientA = Sqs.newClient(URI.create("http://127.0.0.1:" + proxy.port()));
    a =
        Sqs.transport()
            .client(clientA)
            .visibilityTimeout(Duration.ofSeconds(1))
            .requestTimeout(Duration.ofSeconds(5)) // A's calls on silenced connections end sooner
            .build();
    b = Sqs.transport().visibilityTimeout(Duration.ofSeconds(1)).build();
  }

  @AfterEach
  void close() {
    a.close();
    b.close();
    clientA.close();
    proxy.close();
    db.close();
  }

  @Test
  void aDeleteWithAnExpiredReceiptHandleCausesNoSecondEffectAndNoLoop() throws Exception {
    String dest = "expired-" + System.nanoTime();
    AtomicInteger handledA = new AtomicInteger();
    AtomicInteger handledB = new AtomicInteger();
    AtomicInteger receivedB = new AtomicInteger();
    CountDownLatch aRunning = new CountDownLatch(1);
    CountDownLatch bReceived = new CountDownLatch(1);
    try (Once onceA = once(a, dest, null);
        Once onceB =
            once(
                b,
                dest,
                new OnceListener() {
                  @Override
                  public void received(List<ReceivedEvent> batch) {
                    receivedB.addAndGet(batch.size());
                    bReceived.countDown();
                  }
                })) {
      onceA.consumer("g").subscribe(dest, (tx, e) -> {}).build().close(); // declares the queue
      onceA.inTransaction(tx -> tx.publish(Event.of(EventId.of("paid", 1), dest, "k", "T", "{}")));
      assertThat(onceA.newRelay().runOnce()).isEqualTo(1);

      try (Consumer consumerA =
          consumer(
              onceA,
              dest,
              (tx, e) -> {
                handledA.incrementAndGet();
                proxy.partition(); // A can renew nothing: the message's visibility runs out
                aRunning.countDown();
                assertThat(bReceived.await(30, TimeUnit.SECONDS)).as("B received it").isTrue();
                proxy.heal();
                tx.update("INSERT INTO expired_effects VALUES (?)", e.id().value());
              })) {
        assertThat(aRunning.await(30, TimeUnit.SECONDS)).as("A runs the event").isTrue();
        try (Consumer consumerB =
            consumer(
                onceB,
                dest,
                (tx, e) -> {
                  handledB.incrementAndGet();
                  tx.update("INSERT INTO expired_effects VALUES (?)", e.id().value());
                })) {
          await(
              () ->
                  depth(dest) == 0
                      && db.count("SELECT count(*) FROM once_inbox WHERE consumer_id = 'g'") == 1,
              "the message deleted and the marker committed");
        }
      }
    }
    assertThat(db.count("SELECT count(*) FROM expired_effects")).as("effects").isEqualTo(1);
    assertThat(handledA.get()).as("A's handler calls").isEqualTo(1);
    assertThat(handledB.get()).as("B's handler calls: its delivery was a DUPLICATE").isZero();
    assertThat(receivedB.get()).as("B's receives of the one message: no loop").isBetween(1, 2);
    assertThat(db.count("SELECT count(*) FROM once_dead_letter WHERE destination = ?", dest))
        .isZero();
  }

  private Once once(SqsTransport t, String dest, OnceListener listener) {
    var builder = Once.builder().dataSource(db.dataSource()).transport(t).destinations(dest);
    if (listener != null) {
      builder.listener(listener);
    }
    return builder.build();
  }

  private static Consumer consumer(Once once, String dest, dev.once.Handler handler) {
    return once.consumer("g")
        .subscribe(dest, handler)
        .batchSize(1)
        .workers(1)
        .idleWait(Duration.ofMillis(200))
        .build()
        .start();
  }

  private long depth(String dest) {
    return b.depth(dest, "g").orElseThrow();
  }

  private static void await(BooleanSupplier done, String what) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (!done.getAsBoolean()) {
      assertThat(System.nanoTime()).as("within 60 s: " + what).isLessThan(deadline);
      TimeUnit.MILLISECONDS.sleep(50);
    }
  }
}
