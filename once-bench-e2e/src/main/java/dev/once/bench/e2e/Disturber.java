package dev.once.bench.e2e;

import dev.once.Once;
import dev.once.testkit.TcpProxy;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Cuts every connection through the proxy (RabbitMQ), or has a second consumer join the group and
 * leave it again (Kafka), while the phase runs: each time {@code interval} after the pipeline
 * committed an effect again since the last fault. A fixed period would be one long outage, not
 * faults, whenever it is shorter than the reconnection (a cut every 300 ms against a reconnection
 * of ~550 ms kept 200 orders from draining for 10 minutes); this way every phase measures recovery,
 * and a slow recovery shows as a lower rate.
 */
final class Disturber {
  private final String fault;
  private final Duration interval;
  private final TcpProxy proxy;
  private final Once once;
  private final BenchSettings settings;
  private final LongSupplier effects;
  private final AtomicLong done = new AtomicLong();
  private volatile boolean stopped;
  private Thread thread;

  Disturber(
      String fault,
      Duration interval,
      TcpProxy proxy,
      Once once,
      BenchSettings settings,
      LongSupplier effects) {
    this.fault = fault;
    this.interval = interval;
    this.proxy = proxy;
    this.once = once;
    this.settings = settings;
    this.effects = effects;
  }

  void start() {
    if (!fault.equals("cuts") && !fault.equals("rebalances")) {
      return;
    }
    thread = new Thread(this::loop, "once-bench-" + fault);
    thread.setDaemon(true);
    thread.start();
  }

  private void loop() {
    AutoCloseable joined = null;
    try {
      while (!stopped) {
        Thread.sleep(interval.toMillis());
        if (stopped) {
          break;
        }
        if (proxy != null) {
          proxy.cut();
        } else if (joined == null) {
          joined =
              OnceE2e.firstHop(once, settings, FaultsBench.HOPS, OnceE2e.DEFAULT_LINGER, 1).start();
        } else {
          joined.close();
          joined = null;
        }
        done.incrementAndGet();
        awaitProgress(effects.getAsLong());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      throw new IllegalStateException("once bench faults: " + fault + " failed", e);
    } finally {
      if (joined != null) {
        try {
          joined.close();
        } catch (Exception ignored) {
          // the phase is ending
        }
      }
    }
  }

  /** Until an effect more than {@code seen} is committed, or the phase ends. */
  private void awaitProgress(long seen) throws InterruptedException {
    while (!stopped && effects.getAsLong() <= seen) {
      Thread.sleep(10);
    }
  }

  void stop() throws InterruptedException {
    stopped = true;
    if (thread != null) {
      thread.interrupt();
      thread.join();
    }
  }

  long done() {
    return done.get();
  }
}
