package dev.once.bench.e2e;

import dev.once.Consumer;
import dev.once.Once;
import dev.once.spi.Transport;
import dev.once.testkit.TcpProxy;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The transport's own fault of a {@code bench faults} phase: every connection cut through the proxy
 * (RabbitMQ), a second member joining the consumer group and leaving it again (Kafka), or SQS's
 * connections cut and its endpoint stalled for 3 s, in turn ({@code endpoint}), each time {@code
 * interval} after the pipeline committed an effect again since the last fault. A fixed period would
 * be one long outage, not faults, whenever it is shorter than the reconnection (a cut every 300 ms
 * against a reconnection of ~550 ms kept 200 orders from draining for 10 minutes); this way every
 * phase measures recovery, and a slow recovery shows as a lower rate. The member has a transport of
 * its own, so a Kafka consumer of its own: a second {@code Consumer} on the phase's transport would
 * share its Kafka consumer, and nothing would be revoked.
 */
final class Disturber {
  /** How long SQS's endpoint stays silent in an {@code endpoint} fault. */
  static final Duration STALL = Duration.ofSeconds(3);

  private final String fault;
  private final Duration interval;
  private final TcpProxy proxy;
  private final BenchEnv env;
  private final E2eTimings timings;
  private final AtomicLong done = new AtomicLong();
  private volatile boolean stopped;
  private Thread thread;

  Disturber(String fault, Duration interval, TcpProxy proxy, BenchEnv env, E2eTimings timings) {
    this.fault = fault;
    this.interval = interval;
    this.proxy = proxy;
    this.env = env;
    this.timings = timings;
  }

  void start() {
    if (!fault.equals("cuts") && !fault.equals("rebalances") && !fault.equals("endpoint")) {
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
        if (fault.equals("endpoint")) {
          disturbEndpoint();
        } else if (proxy != null) {
          proxy.cut();
        } else if (joined == null) {
          joined = join();
        } else {
          joined.close();
          joined = null;
        }
        done.incrementAndGet();
        awaitProgress(timings.effects());
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

  /**
   * SQS's turn, alternately: every connection of the SDK cut (reset), or the endpoint silent for
   * {@link #STALL} (open and new connections get no answer), then the silent connections reset, as
   * a stall that outlasts a connection ends.
   */
  private void disturbEndpoint() throws InterruptedException {
    if (done.get() % 2 == 0) {
      proxy.cut();
      return;
    }
    proxy.partition();
    Thread.sleep(STALL.toMillis());
    proxy.heal();
    proxy.cut();
  }

  /** Until an effect more than {@code seen} is committed, or the phase ends. */
  private void awaitProgress(long seen) throws InterruptedException {
    while (!stopped && timings.effects() <= seen) {
      Thread.sleep(10);
    }
  }

  /** A second member of the first hop's group: its transport, Once and one worker; no relay. */
  private AutoCloseable join() {
    Transport transport = env.openTransport();
    Once once = OnceE2e.build(env, transport, timings);
    Consumer consumer =
        OnceE2e.firstHop(once, env.settings(), FaultsBench.HOPS, OnceE2e.DEFAULT_LINGER, 1).start();
    return () -> {
      consumer.close();
      once.close();
      transport.close();
    };
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
