package dev.once.bench.e2e;

import dev.once.Once;
import dev.once.spi.Transport;
import dev.once.testkit.CrashPoint;
import dev.once.testkit.FaultInjector;
import dev.once.testkit.TcpProxy;
import java.io.PrintStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code once bench faults}: how fast the pipeline recovers. The same two-hop pipeline as {@code
 * bench e2e} (producers committing while relays and consumers run) drains the same number of orders
 * once per phase, in one run: without faults, then with crashes injected at crash rate 0.05, 0.1
 * and 0.2 (the demo's consumer and relay windows, one chance per window per unit of work), then, on
 * RabbitMQ, with every connection of Once's transport cut (reset) through a TCP proxy, and on Kafka
 * with a second member (a transport, so a Kafka consumer, of its own) joining and leaving the group
 * (each join and each leave revokes partitions), on SQS with every connection of Once's SDK client
 * cut through a TCP proxy, or the endpoint stalled for 3 s, in turn: one such fault each time the
 * pipeline has worked for the interval since it recovered from the last one (see {@link
 * Disturber}). {@code faults_ratio} of a phase is its throughput over the throughput without
 * faults; every phase counts its duplicate effects from the tables. With {@code --ordered} the
 * orders share keys ({@link KeySteps}: about ten steps a key, each key's steps published in order)
 * and every phase also counts the first hop's effects out of their key's order; the second hop's
 * consumer is unordered, as in {@code bench e2e --ordered}.
 */
public final class FaultsBench {
  /** The crash rates of a run; 0 is the phase every ratio is taken against. */
  public static final List<Double> CRASH_RATES = List.of(0.0, 0.05, 0.1, 0.2);

  /**
   * Where crashes are injected: the consumers' and relays' windows of the demo. Not the producer's:
   * a crashed producer transaction is the caller's to retry, and the bench's producers are the
   * clock.
   */
  static final Set<CrashPoint> WINDOWS =
      EnumSet.of(
          CrashPoint.CONSUMER_BEFORE_TRANSACTION,
          CrashPoint.CONSUMER_AFTER_MARKER,
          CrashPoint.CONSUMER_AFTER_EFFECT_BEFORE_COMMIT,
          CrashPoint.CONSUMER_AFTER_COMMIT_BEFORE_ACK,
          CrashPoint.RELAY_AFTER_PUBLISH_BEFORE_MARK_SENT);

  static final int HOPS = 2;

  /** One phase's figures. */
  record Phase(
      String fault,
      double crashRate,
      double eps,
      double seconds,
      long crashes,
      long disturbances,
      long effects,
      long duplicateEffects,
      Long outOfOrder,
      Map<String, Object> deliveries) {
    String name() {
      return fault.equals("crash") ? "crash_" + crashRate : fault;
    }
  }

  /**
   * What producer {@code producer} of an ordered run publishes, in its order: {@link
   * KeySteps#orders}, or a broken twin's.
   */
  interface Publishing {
    long[] orders(KeySteps keys, int producer);
  }

  private FaultsBench() {}

  /**
   * Runs the phases on {@code env}: first {@code warmup} orders without faults, not measured, then
   * each of {@code rates} (0 first), then the transport's own fault every {@code interval} (none on
   * the table queue). {@code seed} decides which units of work crash.
   */
  public static BenchResult run(
      BenchEnv env,
      List<Double> rates,
      long seed,
      Duration interval,
      int warmup,
      PrintStream progress)
      throws Exception {
    return run(env, rates, seed, interval, warmup, progress, KeySteps::orders);
  }

  /** As above; an ordered run's producers publish what {@code publishing} gives them. */
  static BenchResult run(
      BenchEnv env,
      List<Double> rates,
      long seed,
      Duration interval,
      int warmup,
      PrintStream progress,
      Publishing publishing)
      throws Exception {
    checkRates(rates);
    BenchSettings s = env.settings();
    progress.printf(
        "once bench faults: %d orders per phase, %d hops, on %s, transport %s%n",
        s.events(), HOPS, env.description(), env.transportName());
    if (warmup > 0) {
      progress.printf("  warm-up: %d orders without faults, not measured ...%n", warmup);
      phase(env, s.with(warmup, 0), "none", 0, seed, interval, publishing, progress);
    }
    List<Phase> phases = new ArrayList<>();
    for (double rate : rates) {
      phases.add(
          phase(env, s, rate == 0 ? "none" : "crash", rate, seed, interval, publishing, progress));
    }
    String own =
        switch (env.transportName()) {
          case "rabbitmq" -> "cuts";
          case "kafka" -> "rebalances";
          case "sqs", "sqs-fifo" -> "endpoint";
          default -> null;
        };
    if (own != null) {
      phases.add(phase(env, s, own, 0, seed, interval, publishing, progress));
    }
    return FaultsReport.of(env, s, phases, seed, interval, warmup);
  }

  /** Refuses crash rates that do not start with 0 or are not between 0 and 0.5. */
  public static void checkRates(List<Double> rates) {
    if (rates.isEmpty() || rates.get(0) != 0.0) {
      throw new IllegalArgumentException(
          "--crash-rates must start with 0 (the run every ratio is taken against), was " + rates);
    }
    for (double r : rates) {
      if (!(r >= 0 && r <= 0.5)) {
        throw new IllegalArgumentException("--crash-rates must be between 0 and 0.5, was " + r);
      }
    }
  }

  private static Phase phase(
      BenchEnv env,
      BenchSettings s,
      String fault,
      double rate,
      long seed,
      Duration interval,
      Publishing publishing,
      PrintStream progress)
      throws Exception {
    progress.printf(
        "  %s %s ...%n",
        now(),
        fault.equals("crash") ? "crash rate " + rate : fault.equals("none") ? "no faults" : fault);
    TcpProxy proxy =
        switch (fault) {
          case "cuts" -> proxyTo(env.amqp());
          case "endpoint" -> proxyTo(env.sqsEndpoint());
          default -> null;
        };
    try (Transport transport =
        proxy == null
            ? env.openTransport()
            : fault.equals("endpoint")
                ? env.openSqsTransport(URI.create("http://127.0.0.1:" + proxy.port()))
                : env.openTransport(through(env.amqp(), proxy))) {
      env.resetE2e(transport);
      E2eTimings timings = new E2eTimings(BenchTables.IN, OnceE2e.finalConsumer(HOPS), true);
      KeySteps keys = KeySteps.of(s.events(), s.producers());
      FaultInjector crashes = FaultInjector.random(seed, rate, WINDOWS);
      DeliveryCounts handed = new DeliveryCounts();
      List<AutoCloseable> running = new ArrayList<>();
      // the injector last: a crash after a commit must not hide that commit from the clock, nor a
      // crash on receipt the batch from the counts
      try (Once once = OnceE2e.build(env, transport, timings, handed, crashes)) {
        OnceE2e.start(once, s, HOPS, OnceE2e.DEFAULT_LINGER, running);
        Disturber disturber = new Disturber(fault, interval, proxy, env, timings);
        long n = s.events();
        long start = System.nanoTime();
        try {
          disturber.start();
          if (s.ordered()) {
            Producers.owned(
                (orders, from, to) -> OnceE2e.produce(once, keys, orders, from, to),
                s.producers(),
                s.producerBatch(),
                t -> publishing.orders(keys, t));
          } else {
            Producers.fullSpeed(
                (from, to) -> OnceE2e.produce(once, from, to),
                s.producers(),
                s.producerBatch(),
                1,
                n);
          }
          OnceE2e.await(timings, n, s);
        } finally {
          disturber.stop();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        double eps = timings.eps(1, n + 1);
        OnceE2e.closeAll(running);
        OnceE2e.Counts counts = OnceE2e.counts(env);
        Long outOfOrder =
            s.ordered()
                ? BenchTables.count(
                    env.dataSource(), keys.outOfOrder(BenchTables.isMariaDb(env.dataSource())))
                : null;
        Phase p =
            new Phase(
                fault,
                rate,
                eps,
                seconds,
                crashes.totalCrashes(),
                disturber.done(),
                counts.effects(),
                counts.duplicates(),
                outOfOrder,
                handed.json());
        progress.printf(
            "  %s %s: %.0f orders/s, %d crashes, %d %s, %d duplicate effects%s%n",
            now(),
            p.name(),
            eps,
            p.crashes(),
            p.disturbances(),
            fault.equals("crash") || fault.equals("none") ? "other faults" : fault,
            p.duplicateEffects(),
            outOfOrder == null ? "" : ", " + outOfOrder + " out of key order");
        return p;
      } finally {
        OnceE2e.closeAll(running);
        resetAfter(env, transport, proxy);
      }
    } finally {
      if (proxy != null) {
        proxy.close();
      }
    }
  }

  /**
   * Clears the phase's queues and tables: after cuts through a fresh transport straight to the
   * broker, since the proxied one may still be reconnecting from the last cut.
   */
  private static void resetAfter(BenchEnv env, Transport transport, TcpProxy proxy) {
    if (proxy == null) {
      env.resetE2e(transport);
      return;
    }
    try (Transport direct = env.openTransport()) {
      env.resetE2e(direct);
    }
  }

  private static TcpProxy proxyTo(String amqp) {
    URI uri = URI.create(amqp);
    return TcpProxy.to(uri.getHost(), uri.getPort() < 0 ? 5672 : uri.getPort());
  }

  /** A proxy in front of an SQS endpoint on plain http (ElasticMQ, LocalStack). */
  private static TcpProxy proxyTo(URI sqs) {
    if (sqs == null || !"http".equals(sqs.getScheme())) {
      throw new IllegalArgumentException(
          "once bench faults cuts SQS's connections through a proxy: it needs an http endpoint"
              + " (ElasticMQ, the default), not "
              + (sqs == null ? "AWS" : sqs));
    }
    return TcpProxy.to(sqs.getHost(), sqs.getPort() < 0 ? 80 : sqs.getPort());
  }

  /** {@code amqp} with the proxy's address in place of the broker's. */
  static String through(String amqp, TcpProxy proxy) {
    URI uri = URI.create(amqp);
    try {
      return new URI(
              uri.getScheme(),
              uri.getRawUserInfo(),
              "127.0.0.1",
              proxy.port(),
              uri.getRawPath(),
              uri.getRawQuery(),
              null)
          .toString();
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("cannot point the RabbitMQ URI at the proxy", e);
    }
  }

  static String now() {
    return java.time.LocalTime.now(java.time.ZoneOffset.UTC)
        .truncatedTo(java.time.temporal.ChronoUnit.MILLIS)
        .toString();
  }
}
