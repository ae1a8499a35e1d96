package dev.once.bench.e2e;

import dev.once.Consumer;
import dev.once.Once;
import dev.once.OnceListener;
import dev.once.Relay;
import dev.once.scenario.WarehousePipeline;
import dev.once.spi.Transport;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Once end to end, as a service runs it: relays and consumers are running when the producers start
 * committing orders ({@code producerBatch} per transaction, one by default). One hop: consumer
 * {@code bench} writes its effect (the scenario's notifier handler). Two hops: consumer {@code
 * bench} runs the scenario's warehouse handler (a dispatch job and a DispatchQueued event),
 * consumer {@code bench-notify} the notifier's (a notification). The clock runs from the first
 * producer commit to the last effect of the last hop committed; every order's commit→effect latency
 * is kept. Then, with the pipeline idle, orders are committed one per transaction at a paced rate
 * (a third of the sustained one unless given) and their latencies kept apart.
 */
final class OnceE2e {
  record Result(
      double eps,
      long[] latencies,
      double pacedRate,
      long[] pacedLatencies,
      long effects,
      long duplicateEffects,
      java.util.Map<String, Double> pacedStages,
      RunCost.Spent cost,
      RunCost.Spent pacedCost,
      java.util.Map<String, Object> sqsRequests) {}

  /** Once's own batch linger, for the runs that do not choose one. */
  static final java.time.Duration DEFAULT_LINGER = dev.once.ConsumerBuilder.DEFAULT_BATCH_LINGER;

  /** Effects of a run in the bench's tables, and the rows beyond one per event: second effects. */
  record Counts(long effects, long duplicates) {}

  private OnceE2e() {}

  static String finalConsumer(int hops) {
    return hops == 2 ? BenchTables.NOTIFIER : BenchTables.CONSUMER;
  }

  /**
   * Once's producers alone, nothing else running: the business insert and {@code tx.publish} per
   * transaction through Once, the threads of ceiling P (the same rows on raw JDBC). Orders per
   * second.
   */
  static double producersAlone(BenchEnv env, BenchSettings s) throws Exception {
    try (Transport transport = env.openTransport()) {
      env.resetE2e(transport);
      try (Once once = build(env, transport, new E2eTimings(BenchTables.IN, "none"))) {
        double seconds =
            Producers.fullSpeed(
                (from, to) -> produce(once, from, to),
                s.producers(),
                s.producerBatch(),
                1,
                s.events());
        return s.events() / seconds;
      } finally {
        env.resetE2e(transport);
      }
    }
  }

  /**
   * {@code linger}: the batch linger of Once's consumers; {@code warmPaced}: the paced run is run
   * twice, and the first, unmeasured, warms its code ({@link PacedJit}).
   */
  static Result run(
      BenchEnv env,
      BenchSettings s,
      int hops,
      double latencyRate,
      java.time.Duration linger,
      boolean warmPaced,
      BenchTracing tracing,
      PrintStream progress)
      throws Exception {
    try (Transport transport = env.openTransport()) {
      env.resetE2e(transport);
      E2eTimings timings = new E2eTimings(BenchTables.IN, finalConsumer(hops));
      List<AutoCloseable> running = new ArrayList<>();
      try (Once once = build(env, transport, timings, tracing.tracing())) {
        start(once, s, hops, linger, running);
        awaitGroups(env, hops);
        long n = s.events();
        RunCost cost = RunCost.start(env.dataSource(), timings);
        long fullJit = JitWarmup.compiledMillis();
        java.util.Map<String, Long> sqsBefore = env.onSqs() ? env.sqsRequests().snapshot() : null;
        Producers.fullSpeed(
            (from, to) -> tracing.inRequest(() -> produce(once, from, to)),
            s.producers(),
            s.producerBatch(),
            1,
            n);
        await(timings, n, s);
        RunCost.Spent spent = cost.stop(); // the full-speed run's, from its first order to its end
        java.util.Map<String, Object> requests =
            sqsBefore == null
                ? java.util.Map.of()
                : env.sqsRequests().perEvent(sqsBefore, n, "sqs_once_per_order_");
        double eps = timings.eps(1, n + 1);
        long[] latencies = timings.latencies(1, n + 1);
        double rate = latencyRate > 0 ? latencyRate : eps / 3;
        long paced = Math.round(rate * s.latencySeconds());
        progress.printf(
            "  %s once end to end: %.0f orders/s; paced run at %.0f orders/s%n",
            java.time.LocalTime.now(java.time.ZoneOffset.UTC), eps, rate);
        double achieved = 0;
        long[] pacedLatencies = new long[0];
        // where the full-speed run's time went: each stage's p50 and its end (as ceiling C's)
        java.util.Map<String, Double> stages =
            new java.util.LinkedHashMap<>(timings.stages("", 1, n + 1));
        stages.putAll(timings.ends("", 1, n + 1));
        stages.put(
            "jit_ms", (double) (JitWarmup.compiledMillis() - fullJit)); // compiling meanwhile
        RunCost.Spent pacedSpent = null;
        if (paced > 0) {
          Producers.Produce orders = (from, to) -> tracing.inRequest(() -> produce(once, from, to));
          long first = n + 1;
          if (warmPaced) {
            Producers.paced(orders, s.latencyProducers(), first, paced, rate);
            await(timings, first - 1 + paced, s);
            first += paced;
          }
          PacedJit jit = PacedJit.settle("paced_", warmPaced);
          RunCost pacedCost = RunCost.start(env.dataSource(), timings);
          achieved = Producers.paced(orders, s.latencyProducers(), first, paced, rate);
          await(timings, first - 1 + paced, s);
          pacedSpent = pacedCost.stop();
          pacedLatencies = timings.latencies(first, first + paced);
          stages.putAll(timings.stages("paced_", first, first + paced));
          stages.putAll(jit.figures());
        }
        closeAll(running);
        Counts counts = counts(env);
        return new Result(
            eps,
            latencies,
            achieved,
            pacedLatencies,
            counts.effects(),
            counts.duplicates(),
            stages,
            spent,
            pacedSpent,
            requests);
      } finally {
        closeAll(running);
        env.resetE2e(transport);
      }
    }
  }

  /** Both hops' effects, read from the tables. */
  static Counts counts(BenchEnv env) {
    long effects =
        BenchTables.count(env.dataSource(), "SELECT count(*) FROM bench_effects")
            + BenchTables.count(env.dataSource(), "SELECT count(*) FROM bench_notifications");
    long duplicates =
        BenchTables.duplicates(env.dataSource(), "bench_effects")
            + BenchTables.duplicates(env.dataSource(), BenchTables.NOTIFICATIONS);
    return new Counts(effects, duplicates);
  }

  /** Once on the bench's destinations; {@code more} listeners after the clock's and the count's. */
  static Once build(BenchEnv env, Transport transport, E2eTimings timings, OnceListener... more) {
    return build(env, transport, timings, dev.once.Tracing.NONE, more);
  }

  /** As above, traced by {@code tracing}. */
  static Once build(
      BenchEnv env,
      Transport transport,
      E2eTimings timings,
      dev.once.Tracing tracing,
      OnceListener... more) {
    var builder =
        Once.builder()
            .tracing(tracing)
            .dataSource(env.dataSource())
            .transport(transport)
            .destinations(BenchTables.IN, BenchTables.E2E_DISPATCH)
            .relayBatchSize(env.settings().relayBatch())
            .listener(timings)
            .listener(env.rollbacks());
    for (OnceListener l : more) {
      builder.listener(l);
    }
    return builder.build();
  }

  /**
   * On Kafka, waits until the consumer group of each hop holds every partition (one member: Once
   * has one Kafka consumer per group and process), as ceiling C waits for its own: the clock does
   * not time a join.
   */
  private static void awaitGroups(BenchEnv env, int hops) throws Exception {
    if (!env.transportName().equals("kafka")) {
      return;
    }
    List<String> destinations =
        hops == 2 ? List.of(BenchTables.IN, BenchTables.E2E_DISPATCH) : List.of(BenchTables.IN);
    for (String destination : destinations) {
      KafkaGroups.awaitSettled(
          env.bootstrap(),
          BenchEnv.RABBIT_PREFIX + destination,
          BenchEnv.KAFKA_PARTITIONS,
          1,
          java.time.Duration.ofSeconds(60));
    }
  }

  static void start(
      Once once,
      BenchSettings s,
      int hops,
      java.time.Duration linger,
      List<AutoCloseable> running) {
    running.add(firstHop(once, s, hops, linger, s.workers()).start());
    if (hops == 2) {
      Consumer second =
          once.consumer(BenchTables.NOTIFIER)
              .subscribe(
                  BenchTables.E2E_DISPATCH,
                  WarehousePipeline.notifier(
                      BenchTables.NOTIFICATIONS, WarehousePipeline.Extras.NONE))
              .workers(s.workers())
              .batchSize(s.batch())
              .batchLinger(linger)
              .build();
      running.add(second.start());
    }
    for (int i = 0; i < s.relays(); i++) {
      Relay relay = once.newRelay().start();
      running.add(relay);
    }
  }

  /**
   * The consumer of the first hop with {@code workers} workers: the warehouse (two hops) or the
   * notifier writing its effect (one hop). Another one of the same consumer id shares its work.
   */
  static Consumer firstHop(
      Once once, BenchSettings s, int hops, java.time.Duration linger, int workers) {
    WarehousePipeline.Extras none = WarehousePipeline.Extras.NONE;
    return s.shape(
            once.consumer(BenchTables.CONSUMER)
                .subscribe(
                    BenchTables.IN,
                    hops == 2
                        ? WarehousePipeline.warehouse(BenchTables.E2E_WAREHOUSE, none)
                        : WarehousePipeline.notifier("bench_effects", none))
                .workers(workers)
                .batchSize(s.batch())
                .batchLinger(linger))
        .build();
  }

  static void closeAll(List<AutoCloseable> running) {
    for (AutoCloseable c : running) {
      try {
        c.close();
      } catch (Exception ignored) {
        // the bench is ending
      }
    }
    running.clear();
  }

  /** One producer transaction: a business row and an OrderPaid-like event per order. */
  static void produce(Once once, long from, long to) {
    once.inTransaction(
        tx -> {
          for (long id = from; id < to; id++) {
            tx.update(BenchTables.INSERT_ORDER, id);
            tx.publish(Pipeline.event(id));
          }
          return null;
        });
  }

  /**
   * One producer transaction of an ordered run: orders {@code orders[from, to)}, each on its key,
   * in that order.
   */
  static void produce(Once once, KeySteps keys, long[] orders, int from, int to) {
    once.inTransaction(
        tx -> {
          for (int i = from; i < to; i++) {
            tx.update(BenchTables.INSERT_ORDER, orders[i]);
            tx.publish(Pipeline.event(orders[i], keys.key(orders[i])));
          }
          return null;
        });
  }

  static void await(E2eTimings timings, long n, BenchSettings s) throws InterruptedException {
    if (!timings.await(n, s.timeoutSeconds() * 1_000_000_000L, () -> {})) {
      throw new IllegalStateException(
          "Once committed the last effect of only "
              + timings.effects()
              + " of "
              + n
              + " orders in "
              + s.timeoutSeconds()
              + " s (--timeout)");
    }
  }
}
