package dev.once.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.Event;
import dev.once.OnceListener;
import dev.once.test.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The broker misbehaves while events flow: connections cut, the broker application restarted, a
 * destination nobody consumes. Each test checks effects, markers and outbox rows. Cuts stay within
 * the test's own virtual host of the shared broker; the restart is done on a node of the test's own
 * ({@link PrivateBroker}), since stopping the shared broker's application would pull it from under
 * every other process on the machine.
 */
class BrokerFaultTest {
  private static final int EVENTS = 5_000;
  private String vhost;
  private TestDatabase db;
  private RabbitTransport transport;

  @BeforeEach
  void open() {
    db = TestDatabase.embedded();
  }

  /** The transport of this test's own virtual host on the shared broker. */
  private RabbitTransport onSharedBroker() {
    vhost = Broker.newVhost();
    transport = transport(Broker.uri(vhost));
    return transport;
  }

  private static RabbitTransport transport(String uri) {
    return RabbitTransport.builder()
        .uri(uri)
        .recoveryBackoff(Duration.ofMillis(250), Duration.ofSeconds(2))
        .build();
  }

  @AfterEach
  void close() {
    if (transport != null) {
      transport.close();
    }
    db.close();
    Broker.deleteVhost(vhost);
  }

  @Test
  void everyConnectionCutByTheBrokerWhileEventsFlowLosesNothingAndDoublesNothing()
      throws Exception {
    try (Flow flow = new Flow(db, onSharedBroker(), OnceListener.NOOP).start()) {
      Thread producer = flow.produceInBackground(EVENTS);
      flow.awaitEffects(n -> n >= 1_000, Duration.ofSeconds(60));
      Broker.ctl("close_all_connections", "-p", vhost, "once fault test: cut");
      long afterCut = flow.effects();
      producer.join();

      assertThat(afterCut).as("the cut came while events flowed").isLessThan(EVENTS);
      flow.assertEachProcessedOnce(EVENTS, Duration.ofSeconds(120));
    }
  }

  /**
   * The broker application ({@code rabbitmqctl stop_app}, the Erlang node left running) stops while
   * events flow and stays stopped until 1 000 more outbox rows are written and left unsent (or the
   * producer has written all it had left); then it starts again.
   */
  @Test
  void theBrokerRestartedMidRunLosesNothingAndDoublesNothing() throws Exception {
    try (PrivateBroker broker = PrivateBroker.start();
        RabbitTransport rabbit = transport(broker.uri());
        Flow flow = new Flow(db, rabbit, OnceListener.NOOP).start()) {
      Thread producer = flow.produceInBackground(EVENTS);
      flow.awaitEffects(n -> n >= 1_000, Duration.ofSeconds(60));
      broker.ctl("stop_app");
      long atStop = flow.effects();
      long unsentAtStop = flow.pending();
      try {
        // the outage lasts while producers keep writing the outbox (20 transactions' worth) and
        // the relay, unable to send, leaves their rows unsent — or until the producer has written
        // its last row, where it had fewer than 1 000 left when the broker stopped
        flow.awaitPending(
            n -> n >= unsentAtStop + 1_000 || !producer.isAlive(), Duration.ofSeconds(60));
      } finally {
        broker.ctl("start_app");
        broker.ctl("await_startup");
      }
      producer.join();

      assertThat(atStop).as("the stop came while events flowed").isLessThan(EVENTS);
      String queue = rabbit.queueName(Flow.DESTINATION, "warehouse");
      flow.assertEachProcessedOnce(
          EVENTS, Duration.ofSeconds(120), () -> broker.messagesUnsettled(queue));
    }
  }

  @Test
  void anUnroutableDestinationIsReportedAndKeptWhileOtherKeysFlow() throws Exception {
    List<String> failures = new CopyOnWriteArrayList<>();
    OnceListener recorder =
        new OnceListener() {
          @Override
          public void publishFailed(Event event, String reason) {
            failures.add(event.id() + ": " + reason);
          }
        };
    try (Flow flow = new Flow(db, onSharedBroker(), recorder, Flow.DESTINATION, "nobody-listens")) {
      flow.start();
      flow.produce("nobody-listens", 1);
      flow.produce(Flow.DESTINATION, 500);

      flow.assertEachProcessedOnce(500, Duration.ofSeconds(60));
    } finally {
      assertThat(failures).isNotEmpty().allMatch(f -> f.contains("unroutable"));
    }
    assertThat(
            db.count(
                "SELECT count(*) FROM once_outbox WHERE destination = 'nobody-listens'"
                    + " AND sent_at IS NULL AND attempts = 0 AND last_error LIKE 'unroutable%'"))
        .as("the unroutable row is kept, pending and uncharged, with its reason")
        .isEqualTo(1);
  }
}
