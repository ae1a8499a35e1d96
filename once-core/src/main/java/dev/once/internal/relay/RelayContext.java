package dev.once.internal.relay;

import dev.once.OnceConfig;
import dev.once.Tracing;
import dev.once.internal.EngineLifecycle;
import dev.once.internal.KeyOrderedDestinations;
import dev.once.internal.Listeners;
import dev.once.internal.PoolNeeds;
import dev.once.internal.Wakeup;
import dev.once.jdbc.Dialect;
import dev.once.jdbc.TransactionWaits;
import dev.once.spi.InDatabasePublish;
import dev.once.spi.PublishLimits;
import dev.once.spi.Transport;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import javax.sql.DataSource;

/**
 * What a relay reads of its {@code Once}, and nothing else.
 *
 * @param dataSource connections for a batch's transaction
 * @param inDatabase the transport's publish in the relay's own transaction, null when it publishes
 *     through a broker (see {@link InDatabasePublish#publishesIn})
 * @param publishLimits the transport's limits, null if it has none
 * @param relayWaits the bounds of a batch's transaction, which stays open while confirms come
 * @param extraPerPublish connections a publish takes besides the relay's own (the table queue's)
 * @param relays how many relays of this {@code Once} run their own thread
 * @param wakeup the outbox wake-up, its listener started on first use
 * @param keyOrdered the destinations whose rows go out in key order
 * @param lifecycle tells the {@code Once} that the relay starts and stops
 */
public record RelayContext(
    OnceConfig config,
    Dialect dialect,
    DataSource dataSource,
    Transport transport,
    InDatabasePublish inDatabase,
    PublishLimits publishLimits,
    Tracing tracing,
    Listeners listener,
    TransactionWaits relayWaits,
    int extraPerPublish,
    AtomicInteger relays,
    Supplier<Wakeup> wakeup,
    KeyOrderedDestinations keyOrdered,
    EngineLifecycle lifecycle) {

  /** How many relays of this {@code Once} run their own thread; at least 1. */
  int runningRelays() {
    return Math.max(1, relays.get());
  }

  void relayRunning(boolean running) {
    relays.addAndGet(running ? 1 : -1);
  }

  Wakeup outboxWakeup() {
    return wakeup.get();
  }

  void starting(Object engine, PoolNeeds.Need need) {
    lifecycle.starting(engine, need);
  }

  void started(AutoCloseable engine) {
    lifecycle.started(engine);
  }

  void stopped(Object engine) {
    lifecycle.stopped(engine);
  }
}
