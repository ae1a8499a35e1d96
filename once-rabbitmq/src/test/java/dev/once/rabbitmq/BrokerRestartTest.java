package dev.once.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.Consumer;
import dev.once.Once;
import dev.once.Relay;
import dev.once.test.FaultRun;
import dev.once.test.LogLines;
import dev.once.test.TestDatabase;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The RabbitMQ node is stopped and started again ({@code rabbitmqctl stop}, then {@code
 * rabbitmq-server}: a whole node restart, not just its application) while a producer, the relay and
 * four workers run in this JVM. It is a node of this test's own ({@link PrivateBroker}), so the
 * shared broker is never restarted. The connections recover by themselves; the relay keeps the rows
 * it could not publish and publishes them when the node is back; every event ends with exactly one
 * effect.
 */
class BrokerRestartTest {
  private static final int EVENTS = 4_000;
  private static final int WORKERS = 4;

  @Test
  void relayAndWorkersRecoverByThemselvesWhenTheRabbitMqNodeRestartsMidRun() {
    long bootStart = System.nanoTime();
    try (PrivateBroker broker = PrivateBroker.start();
        TestDatabase db = TestDatabase.embedded();
        LogLines log = LogLines.capture()) {
      long firstBoot = Duration.ofNanos(System.nanoTime() - bootStart).toMillis();
      FaultRun run = new FaultRun(db.dataSource());
      try (RabbitTransport transport =
              RabbitTransport.builder()
                  .uri(broker.uri())
                  .recoveryBackoff(Duration.ofMillis(250), Duration.ofSeconds(2))
                  .build();
          Once once =
              Once.builder()
                  .dataSource(db.dataSource())
                  .transport(transport)
                  .destinations(FaultRun.DESTINATION)
                  .relayIdleWait(Duration.ofMillis(200))
                  .confirmTimeout(Duration.ofSeconds(5))
                  .build();
          Consumer consumer =
              once.consumer("warehouse")
                  .subscribe(FaultRun.DESTINATION, FaultRun.effect())
                  .workers(WORKERS)
                  .idleWait(Duration.ofMillis(200))
                  .build();
          Relay relay = once.newRelay()) {
        consumer.start();
        relay.start();
        run.produce(once, 0, EVENTS / 2, Duration.ZERO, Duration.ofSeconds(10));
        Thread producer =
            run.produceInBackground(once, EVENTS / 2, EVENTS * 5 / 8, Duration.ofMillis(60));
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (run.effects() < 300 && System.nanoTime() < deadline) {
          FaultRun.sleep(Duration.ofMillis(20));
        }

        long stopNanos = System.nanoTime();
        long effectsAtStop = run.effects();
        broker.stopNode();
        long stoppedNanos = System.nanoTime();
        join(producer);
        // written while the node is down: the relay cannot publish them and keeps them pending
        run.produce(once, EVENTS * 5 / 8, EVENTS * 3 / 4, Duration.ofMillis(20), Duration.ZERO);
        FaultRun.sleep(Duration.ofSeconds(1));
        long pendingWhileDown = run.pending();
        long startNanos = System.nanoTime();
        broker.startNode();
        long upNanos = System.nanoTime();
        long upMillis = System.currentTimeMillis();

        run.produce(once, EVENTS * 3 / 4, EVENTS, Duration.ofMillis(60), Duration.ofSeconds(10));
        run.awaitAll(EVENTS, Duration.ofSeconds(40));
        long firstEffect = run.firstEffectAfter(upMillis);
        long relayBack =
            run.count(
                "SELECT coalesce(floor(extract(epoch FROM min(sent_at)) * 1000), -1)::bigint"
                    + " FROM once_outbox WHERE sent_at > to_timestamp("
                    + upMillis / 1000.0
                    + ")");
        long warnLines = log.count("failed", stopNanos, Long.MAX_VALUE);
        long errorLines = log.count(" ERROR ", stopNanos, Long.MAX_VALUE);
        long brokerDeadLetters = transport.count(FaultRun.DESTINATION, "warehouse");
        System.out.printf(
            "FAULT rabbitmq node restart: first boot %d ms; %d effects at the stop; stop took %d"
                + " ms, start %d ms, down %d ms in all; %d outbox rows pending while down; after"
                + " it accepted connections: relay published %d ms, first effect %d ms, workers"
                + " that processed again %d of %d; %d log lines 'failed' and %d ERROR from the stop"
                + " on;"
                + " broker dead letters %d%n",
            firstBoot,
            effectsAtStop,
            Duration.ofNanos(stoppedNanos - stopNanos).toMillis(),
            Duration.ofNanos(upNanos - startNanos).toMillis(),
            Duration.ofNanos(upNanos - stopNanos).toMillis(),
            pendingWhileDown,
            relayBack - upMillis,
            firstEffect - upMillis,
            run.workersAfter(upMillis),
            WORKERS,
            warnLines,
            errorLines,
            brokerDeadLetters);

        assertThat(effectsAtStop).as("the restart came while events flowed").isLessThan(EVENTS);
        assertThat(pendingWhileDown).as("rows the relay kept while down").isPositive();
        consumer.close(); // what it held goes back to the queue, where it is counted
        String queue = transport.queueName(FaultRun.DESTINATION, "warehouse");
        run.assertEachProcessedOnce(EVENTS, () -> Broker.messagesIn(broker.uri(), queue));
        assertThat(brokerDeadLetters).as("broker dead letters").isZero();
        assertThat(run.workersAfter(upMillis))
            .as("worker threads that processed events after the restart (none stayed dead)")
            .isEqualTo(WORKERS);
        assertThat(relayBack - upMillis)
            .as("ms from the node accepting connections to the relay's first publish")
            .isBetween(0L, 10_000L);
        assertThat(firstEffect - upMillis)
            .as("ms from the node accepting connections to the first effect")
            .isBetween(0L, 10_000L);
        // the relay pauses 100 ms, 200 ms, … up to 5 s between tries; the workers' receivers wait
        // for the client's recovery: a few dozen lines, where a loop without pauses logs thousands
        assertThat(warnLines).as("log lines 'failed' from the stop on").isLessThan(60);
        assertThat(log.matching(" ERROR "))
            .as("ERROR lines (the client recovering what needs no recovery)")
            .isEmpty();
      }
    }
  }

  private static void join(Thread t) {
    try {
      t.join(60_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
