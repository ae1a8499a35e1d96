package dev.once.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.once.Consumer;
import dev.once.Event;
import dev.once.EventId;
import dev.once.Once;
import dev.once.OnceListener;
import dev.once.ReceivedEvent;
import dev.once.test.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The quorum queue counts every return of a message against its delivery limit, also the returns
 * Once does not charge: a worker that crashes hands back its whole batch and prefetch window. Here
 * 25 events each crash their worker once (an {@link Error} from their handler, as the demo's and
 * the bench's crash injection do), and one innocent behind them is held, and handed back, by every
 * one of those crashes: it is delivered more than 20 times. On the transport's default limit it
 * must still be processed once, and the broker must dead-letter nothing. On the former default of
 * 20 the broker dead-lettered it (and the crashers behind the 20th crash) on its own. Each crash
 * returns it once: the worker's hand-back is not sent before the channel's close returns it.
 */
class CrashReturnsDoNotDeadLetterInnocentsTest {
  private static final int CRASHERS = 25;
  private static final String INNOCENT = EventId.of("order-paid", "innocent").value();

  @Test
  void anInnocentHandedBackByMoreThanTwentyCrashesIsProcessedNotBrokerDeadLettered()
      throws Exception {
    String vhost = Broker.newVhost();
    Set<String> crashed = ConcurrentHashMap.newKeySet();
    AtomicInteger innocentDeliveries = new AtomicInteger();
    try (TestDatabase db = TestDatabase.embedded();
        RabbitTransport transport =
            RabbitTransport.builder().uri(Broker.uri(vhost)).prefetch(64).build();
        Once once =
            Once.builder()
                .dataSource(db.dataSource())
                .transport(transport)
                .destinations("orders")
                .listener(
                    new OnceListener() {
                      @Override
                      public void received(List<ReceivedEvent> batch) {
                        for (ReceivedEvent e : batch) {
                          if (e.id().value().equals(INNOCENT)) {
                            innocentDeliveries.accumulateAndGet(e.deliveryCount(), Math::max);
                          }
                        }
                      }
                    })
                .build()) {
      db.execute("CREATE TABLE effects (event_id text NOT NULL)");
      transport.declare("orders", "warehouse");
      once.useTransaction(
          tx -> {
            for (int i = 0; i < CRASHERS; i++) {
              tx.publish(
                  Event.of(EventId.of("order-paid", "crash-" + i), "orders", "k", "T", "{}"));
            }
            tx.publish(Event.of(new EventId(INNOCENT), "orders", "k", "T", "{}"));
          });
      assertThat(once.newRelay().runOnce()).isEqualTo(CRASHERS + 1);

      try (Consumer consumer =
          once.consumer("warehouse")
              .subscribe(
                  "orders",
                  (tx, e) -> {
                    if (!e.id().value().equals(INNOCENT) && crashed.add(e.id().value())) {
                      throw new Error("simulated crash of the worker at " + e.id().value());
                    }
                    tx.update("INSERT INTO effects VALUES (?)", e.id().value());
                  })
              .batchSize(32)
              .workers(1)
              .idleWait(Duration.ofMillis(500))
              .batchLinger(Duration.ofMillis(200))
              .build()
              .start()) {
        await()
            .atMost(Duration.ofSeconds(120))
            .pollInterval(Duration.ofMillis(50))
            .until(
                () ->
                    db.count("SELECT count(*) FROM effects") >= CRASHERS + 1
                        || transport.count("orders", "warehouse") > 0);
        // the broker dead-letters only what it still holds: once nothing in the queue waits for an
        // acknowledgement, its dead letters are counted in full
        String queue = transport.queueName("orders", "warehouse");
        await()
            .atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofMillis(200))
            .until(() -> Broker.messagesUnsettled(vhost, queue) == 0);
      }

      System.out.printf(
          "CRASH RETURNS: %d crashes, innocent delivered up to %d times, broker dead letters %d"
              + " (delivery limit %d)%n",
          crashed.size(),
          innocentDeliveries.get(),
          transport.count("orders", "warehouse"),
          transport.deliveryLimit());
      assertThat(transport.count("orders", "warehouse"))
          .as(
              "messages the broker dead-lettered on its own (delivery limit %d)",
              transport.deliveryLimit())
          .isZero();
      assertThat(crashed).as("(premise) crashes, one per crasher").hasSize(CRASHERS);
      assertThat(db.count("SELECT count(*) FROM effects WHERE event_id = '" + INNOCENT + "'"))
          .as("the innocent's effects")
          .isEqualTo(1);
      assertThat(innocentDeliveries.get())
          .as("(premise) the innocent's highest delivery count: handed back by the crashes")
          .isGreaterThan(20);
      // its first delivery, then one return per crash (a requeue followed by the channel's close
      // returned it twice: 51 deliveries for 25 crashes)
      assertThat(innocentDeliveries.get())
          .as("the innocent's deliveries: each crash returns it once")
          .isLessThanOrEqualTo(CRASHERS + 1);
      assertThat(db.count("SELECT count(*) FROM effects")).isEqualTo(CRASHERS + 1);
      assertThat(db.count("SELECT count(DISTINCT event_id) FROM effects")).isEqualTo(CRASHERS + 1);
      assertThat(db.count("SELECT count(*) FROM once_dead_letter")).isZero();
    } finally {
      Broker.deleteVhost(vhost);
    }
  }

  @Test
  void aQueueDeclaredWithTheFormerLimitIsRefusedWithWhatToDo() {
    String vhost = Broker.newVhost();
    try (RabbitTransport before =
            RabbitTransport.builder().uri(Broker.uri(vhost)).deliveryLimit(20).build();
        RabbitTransport now = RabbitTransport.builder().uri(Broker.uri(vhost)).build()) {
      before.declare("orders", "warehouse");
      assertThatThrownBy(() -> now.declare("orders", "warehouse"))
          .isInstanceOf(TopologyException.class)
          .hasMessageContaining("'orders.warehouse'")
          .hasMessageContaining("x-delivery-limit")
          .hasMessageContaining("keep it with deliveryLimit(<its limit>)")
          .hasMessageContaining("let Once declare it with 1000");
    } finally {
      Broker.deleteVhost(vhost);
    }
  }
}
