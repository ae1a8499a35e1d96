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

  /**
   * The first half of the events flows when the broker cuts every connection; the second half is
   * written after the cut, so events flow across it whatever the machine's speed.
   */
  @Test
  void everyConnectionCutByTheBrokerWhileEventsFlowLosesNothingAndDoublesNothing()
      throws Exception {
    try (Flow flow = new Flow(db, onSharedBroker(), OnceListener.NOOP).start()) {
      Thread first = flow.produceInBackground(0, EVENTS / 2);
      flow.awaitEffects(n -> n >= 1_000, Duration.ofSeconds(60));
      Broker.ctl("close_all_connections", "-p", vhost, "once fault test: cut");
      Thread second = flow.produceInBackground(EVENTS / 2, EVENTS);
      first.join();
      second.join();

      flow.assertEachProcessedOnce(EVENTS, Duration.ofSeconds(120));
    }
  }

  /**
   * The broker application ({@code rabbitmqctl stop_app}, the Erlang node left running) stops while
   * the first half of the events flows; the second half is written while it is stopped, and the
   * outage lasts until 1 000 more outbox rows are written and left unsent (or that half is all
   * written); then it starts again. Writing the second half after the stop keeps events flowing
   * across it on a loaded machine, where {@code stop_app} can take longer than the whole run
   * (clean-clone CI at load 58: all 5 000 effects were in when it returned).
   */
  @Test
  void theBrokerRestartedMidRunLosesNothingAndDoublesNothing() throws Exception {
    try (PrivateBroker broker = PrivateBroker.start();
        RabbitTransport rabbit = transport(broker.uri());
        Flow flow = new Flow(db, rabbit, OnceListener.NOOP).start()) {
      Thread first = flow.produceInBackground(0, EVENTS / 2);
      flow.awaitEffects(n -> n >= 1_000, Duration.ofSeconds(60));
      broker.ctl("stop_app");
      long unsentAtStop = flow.pending();
      Thread second = flow.produceInBackground(EVENTS / 2, EVENTS);
      long unsentInOutage;
      try {
        flow.awaitPending(
            n -> n >= unsentAtStop + 1_000 || !second.isAlive(), Duration.ofSeconds(60));
        unsentInOutage = flow.pending();
      } finally {
        broker.ctl("start_app");
        broker.ctl("await_startup");
      }
      first.join();
      second.join();

      assertThat(unsentInOutage - unsentAtStop)
          .as("rows written while the broker was stopped and left unsent by the relay")
          .isGreaterThanOrEqualTo(1_000);
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
