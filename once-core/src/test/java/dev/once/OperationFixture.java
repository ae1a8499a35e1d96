package dev.once;

import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.FakeProvider;
import dev.once.test.TestDatabase;
import dev.once.testkit.SettableClock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

/** A real database, a settable clock, a fake provider and a crash switch for operation tests. */
final class OperationFixture implements AutoCloseable {
  static final Duration LEASE = Duration.ofSeconds(30);
  static final Duration WINDOW = Duration.ofHours(24);

  /** Stands for the death of the calling process at a crash window. */
  static final class Crash extends Error {
    private static final long serialVersionUID = 1L;

    Crash(String where) {
      super("simulated crash " + where, null, false, false);
    }
  }

  /** Crashes the next {@code n} times an operation reaches the window. */
  static final class CrashSwitch implements OnceListener {
    final AtomicInteger afterKeyStored = new AtomicInteger();
    final AtomicInteger afterAccepted = new AtomicInteger();

    @Override
    public void operationKeyStored(OperationResult op) {
      if (afterKeyStored.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
        throw new Crash("after the key was stored, before the call");
      }
    }

    @Override
    public void operationAnswered(OperationResult op, OperationState answer) {
      if (afterAccepted.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
        throw new Crash("after the provider accepted, before the result was stored");
      }
    }
  }

  final TestDatabase db = TestDatabase.embedded();
  final SettableClock clock = SettableClock.stoppedNow();
  final CrashSwitch crash = new CrashSwitch();
  final TableQueueTransport transport = TableQueueTransport.create(db.dataSource());
  final Once once =
      Once.builder()
          .dataSource(db.dataSource())
          .transport(transport)
          .destinations("orders")
          .clock(clock)
          .listener(crash)
          .build();
  final FakeProvider provider;

  OperationFixture(boolean idempotent) {
    provider = new FakeProvider(idempotent, WINDOW, clock);
  }

  /** Operations on the fake provider: idempotent (24 h window) or not, with its lookup. */
  Operations operations(UnaryOperator<OperationsBuilder> tweak) {
    OperationsBuilder b =
        once.operations("payments")
            .call(provider::call)
            .lookup(provider::lookup)
            .whenUncertain(ReconcilePolicy.PREFER_MISSED)
            .lease(LEASE)
            .maxWait(Duration.ofSeconds(20))
            .backoff(new Backoff(Duration.ofSeconds(1), Duration.ofMinutes(1), 0));
    b = provider.isIdempotent() ? b.idempotencyWindow(WINDOW) : b.withoutIdempotency();
    return tweak.apply(b).build();
  }

  Operations operations() {
    return operations(b -> b);
  }

  /** The stored row's column, read from a connection of its own. */
  long count(String where, Object... params) {
    return db.count("SELECT count(*) FROM once_operation WHERE " + where, params);
  }

  @Override
  public void close() {
    once.close();
    transport.close();
    db.close();
  }
}
