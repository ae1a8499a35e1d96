package dev.once.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.once.Consumer;
import dev.once.Event;
import dev.once.EventId;
import dev.once.Once;
import dev.once.spi.Delivery;
import dev.once.spi.ForwardingTransport;
import dev.once.spi.Receiver;
import dev.once.spi.Transport;
import dev.once.test.LogLines;
import dev.once.test.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A connection cut by the broker hands back everything the consumer held — the batch it was running
 * and the rest of its prefetch window — flagged redelivered. That is no evidence of a poison: the
 * receiver remembers what it lost, so the redeliveries run as fresh batches, none as a suspect (no
 * raise commit, no group of suspects, nothing run alone, no attempt charged). If the receiver did
 * not tell ({@code cameBackCleanly} false), the 32 of the batch and the window behind it would come
 * back as groups of suspects, one extra commit each, logged: the broken twin shows the checks
 * catching that.
 */
class CutConnectionIsNoEvidenceTest {
  private static final int EVENTS = 200;

  @Test
  void theRedeliveriesOfACutConnectionAreNotSuspected() throws Exception {
    cutUnderARunningBatch(false).check();
  }

  /** The twin: a receiver that cannot tell a cut from a crash charges the cut as suspects. */
  @Test
  void aReceiverThatForgetsTheCutFailsTheChecks() throws Exception {
    Run twin = cutUnderARunningBatch(true);
    assertThatThrownBy(twin::check)
        .as("the checks on a run whose receiver suspects the cut's redeliveries")
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("groups of suspects after the cut");
  }

  /** What a run left: the counts the checks look at. */
  private record Run(
      long effects,
      long distinct,
      int runs,
      List<String> suspectGroups,
      List<String> alone,
      long suspects,
      long attempts,
      long deadLetters) {
    void check() {
      assertThat(effects).isEqualTo(EVENTS);
      assertThat(distinct).isEqualTo(EVENTS);
      assertThat(runs).as("handler runs: the cut batch's commit is kept").isEqualTo(EVENTS);
      assertThat(suspectGroups).as("groups of suspects after the cut").isEmpty();
      assertThat(alone).as("deliveries run alone").isEmpty();
      assertThat(suspects).as("once_suspect rows").isZero();
      assertThat(attempts).as("once_attempt rows").isZero();
      assertThat(deadLetters).as("dead letters").isZero();
    }
  }

  private Run cutUnderARunningBatch(boolean forgetful) throws Exception {
    String vhost = Broker.newVhost();
    CountDownLatch blocked = new CountDownLatch(1);
    CountDownLatch cut = new CountDownLatch(1);
    AtomicInteger runs = new AtomicInteger();
    try (TestDatabase db = TestDatabase.embedded();
        LogLines log = LogLines.capture();
        RabbitTransport rabbit =
            RabbitTransport.builder()
                .uri(Broker.uri(vhost))
                .prefetch(64)
                .recoveryBackoff(Duration.ofMillis(100), Duration.ofMillis(500))
                .build();
        Once once =
            Once.builder()
                .dataSource(db.dataSource())
                .transport(forgetful ? forgetful(rabbit) : rabbit)
                .destinations("orders")
                .build()) {
      db.execute("CREATE TABLE effects (event_id text NOT NULL)");
      rabbit.declare("orders", "warehouse");
      once.useTransaction(
          tx -> {
            for (int i = 0; i < EVENTS; i++) {
              tx.publish(Event.of(EventId.of("o", i), "orders", "k" + i, "OrderPaid", "{}"));
            }
          });
      assertThat(once.newRelay().runOnce()).isEqualTo(EVENTS);

      Consumer consumer =
          once.consumer("warehouse")
              .subscribe(
                  "orders",
                  (tx, e) -> {
                    if (runs.incrementAndGet() == 40) { // in the middle of the second batch
                      blocked.countDown();
                      cut.await(30, TimeUnit.SECONDS);
                    }
                    tx.update("INSERT INTO effects VALUES (?)", e.id().value());
                  })
              .batchSize(32)
              .workers(1)
              .build()
              .start();
      assertThat(blocked.await(60, TimeUnit.SECONDS)).as("the handler got to the cut").isTrue();
      Broker.ctl("close_all_connections", "-p", vhost, "once test: cut under a running batch");
      cut.countDown(); // the batch commits, its acks meet the closed channel

      await()
          .atMost(Duration.ofSeconds(90))
          .pollInterval(Duration.ofMillis(20))
          .until(() -> db.count("SELECT count(*) FROM once_inbox") >= EVENTS);
      // what came back after the cut has been delivered again, not only what was never acked:
      // nothing in the queue waits for an acknowledgement any more
      String queue = rabbit.queueName("orders", "warehouse");
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(200))
          .until(() -> Broker.messagesUnsettled(vhost, queue) == 0);
      consumer.close();
      return new Run(
          db.count("SELECT count(*) FROM effects"),
          db.count("SELECT count(DISTINCT event_id) FROM effects"),
          runs.get(),
          log.matching("came back redelivered for no cause"),
          log.matching("it runs alone"),
          db.count("SELECT count(*) FROM once_suspect"),
          db.count("SELECT count(*) FROM once_attempt"),
          db.count("SELECT count(*) FROM once_dead_letter"));
    } finally {
      Broker.deleteVhost(vhost);
    }
  }

  /** The transport whose receivers never tell that a redelivery came back from a cut. */
  private static Transport forgetful(Transport rabbit) {
    return new ForwardingTransport(rabbit) {
      @Override
      public Receiver receiver(String destination, String consumerGroup) {
        Receiver r = super.receiver(destination, consumerGroup);
        return new Receiver() {
          @Override
          public List<Delivery> poll(int max, Duration wait) throws InterruptedException {
            return r.poll(max, wait);
          }

          @Override
          public List<Delivery> poll(int max, Duration wait, Duration linger)
              throws InterruptedException {
            return r.poll(max, wait, linger);
          }

          @Override
          public void ack(List<Delivery> deliveries) {
            r.ack(deliveries);
          }

          @Override
          public void nack(List<Delivery> deliveries, Duration delay) {
            r.nack(deliveries, delay);
          }

          @Override
          public void release(List<Delivery> deliveries) {
            r.release(deliveries);
          }

          @Override
          public void close() {
            r.close();
          }
        };
      }
    };
  }
}
