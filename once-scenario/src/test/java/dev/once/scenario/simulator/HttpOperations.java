package dev.once.scenario.simulator;

import dev.once.Backoff;
import dev.once.Once;
import dev.once.OnceListener;
import dev.once.Operations;
import dev.once.OperationsBuilder;
import dev.once.ReconcilePolicy;
import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.TestDatabase;
import dev.once.testkit.SettableClock;
import java.time.Duration;
import java.util.function.UnaryOperator;

/** Operations against the real HTTP simulator, on the embedded PostgreSQL. */
final class HttpOperations implements AutoCloseable {
  static final Duration LEASE = Duration.ofSeconds(30);
  final TestDatabase db = TestDatabase.embedded();
  final SettableClock clock = SettableClock.stoppedNow();
  final TableQueueTransport transport = TableQueueTransport.create(db.dataSource());
  final Once once;
  ProviderSimulator sim;
  volatile ProviderClient client;

  HttpOperations(SimulatorConfig config, OnceListener... listeners) {
    var b =
        Once.builder()
            .dataSource(db.dataSource())
            .transport(transport)
            .destinations("orders")
            .clock(clock);
    for (OnceListener l : listeners) {
      b.listener(l);
    }
    once = b.build();
    restart(config);
  }

  void restart(SimulatorConfig config) {
    if (sim != null) {
      sim.close();
    }
    sim = ProviderSimulator.start(config.withClock(clock, Duration.ofHours(24)));
    client = new ProviderClient(sim.baseUri(), Duration.ofSeconds(5));
  }

  Operations charges(UnaryOperator<OperationsBuilder> tweak) {
    return tweak
        .apply(
            once.operations("payments")
                .idempotencyWindow(Duration.ofHours(24))
                .call((key, request) -> client.charge(key, request))
                .lookup((key, id) -> client.findCharge(key, id))
                .whenUncertain(ReconcilePolicy.PREFER_MISSED)
                .lease(LEASE)
                .backoff(new Backoff(Duration.ofSeconds(1), Duration.ofMinutes(1), 0)))
        .build();
  }

  Operations emails(ReconcilePolicy policy) {
    return once.operations("mail")
        .withoutIdempotency()
        .call((key, request) -> client.sendEmail(key, request))
        .lookup((key, id) -> client.findEmail(key, id))
        .whenUncertain(policy)
        .lease(LEASE)
        .backoff(new Backoff(Duration.ofSeconds(1), Duration.ofMinutes(1), 0))
        .build();
  }

  int charges() {
    return sim.ledger().entries("charges").size();
  }

  int emails() {
    return sim.ledger().entries("emails").size();
  }

  @Override
  public void close() {
    once.close();
    transport.close();
    sim.close();
    db.close();
  }
}
