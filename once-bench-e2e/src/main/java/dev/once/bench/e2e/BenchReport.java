package dev.once.bench.e2e;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/** The figures of one {@code once bench} run, for a person or as one JSON object. */
record BenchReport(
    BenchSettings settings,
    String database,
    String transport,
    double ceilingDbEps,
    double ceilingBrokerEps,
    double ceilingHandEps,
    OnceRun.Result once,
    int warmupEvents,
    Rollbacks rollbacks)
    implements BenchResult {

  double ratioDb() {
    return once.onceEps() / ceilingDbEps;
  }

  double ratioBroker() {
    return once.onceEps() / ceilingBrokerEps;
  }

  String brokerCeilingKind() {
    return switch (transport) {
      case "rabbitmq" ->
          "RabbitMQ alone: publish with confirms + consume with manual acks, no database";
      case "kafka" ->
          "Kafka alone: idempotent produce with acks=all + consume with manual offset commits,"
              + " same keys, no database";
      case "sqs", "sqs-fifo" ->
          "SQS alone: SendMessageBatch with a window of calls + two long polls per worker and"
              + " DeleteMessageBatch, no database";
      default -> "the table queue alone: enqueue + claim + ack, no outbox and no inbox";
    };
  }

  @Override
  public boolean ok() {
    return once.distinctEffects() == once.effects();
  }

  @Override
  public Map<String, Object> json() {
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("once_eps", round(once.onceEps()));
    j.put("ceiling_db_eps", round(ceilingDbEps));
    j.put("ceiling_broker_eps", round(ceilingBrokerEps));
    j.put("ratio_db", round3(ratioDb()));
    j.put("ratio_broker", round3(ratioBroker()));
    j.put("ceiling_c_eps", round(ceilingHandEps));
    j.put("ratio_c", round3(once.onceEps() / ceilingHandEps));
    j.put("ceiling_c_void", E2eBench.ceilingVoid(once.onceEps(), ceilingHandEps));
    j.put("p50_ms", once.p50Ms());
    j.put("p99_ms", once.p99Ms());
    j.put("max_ms", once.maxMs());
    j.put("relay_p50_ms", once.relayP50Ms());
    j.put("relay_p99_ms", once.relayP99Ms());
    j.put("latency_rate_eps", round(once.pacedRate()));
    j.put("latency_events", once.latencyEvents());
    j.put("producer_eps", round(once.producerEps()));
    j.put("events", settings.events());
    j.put("ordered", settings.ordered());
    j.put("effects", once.effects());
    j.put("duplicate_effects", once.effects() - once.distinctEffects());
    j.put("once_rollbacks", rollbacks.once.get());
    j.put("ceiling_a_rollbacks", rollbacks.ceilingA.get());
    j.put("ceiling_c_rollbacks", rollbacks.ceilingC.get());
    j.put("producer_rollbacks", Rollbacks.PRODUCERS.get());
    j.put("transport", transport);
    j.put("ceiling_broker", brokerCeilingKind());
    j.put("database", database);
    j.put("workers", settings.workers());
    j.put("batch", settings.batch());
    j.put("relays", settings.relays());
    j.put("relay_batch", settings.relayBatch());
    j.put("producers", settings.producers());
    j.put("producer_batch", settings.producerBatch());
    j.put("latency_producers", settings.latencyProducers());
    j.put("warmup_events", warmupEvents);
    j.put("machine", machine());
    return j;
  }

  /** The database and the pipeline's shape of a run, and the machine, into {@code j}. */
  static void settings(Map<String, Object> j, BenchEnv env, BenchSettings s) {
    j.put("database", env.description());
    j.put("workers", s.workers());
    j.put("batch", s.batch());
    j.put("relays", s.relays());
    j.put("producers", s.producers());
    j.put("producer_batch", s.producerBatch());
    j.put("machine", machine());
  }

  static Map<String, Object> machine() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("cores", Runtime.getRuntime().availableProcessors());
    m.put("load_average", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    m.put("java", System.getProperty("java.version"));
    m.put("max_heap_mb", Runtime.getRuntime().maxMemory() >> 20);
    m.put("date", Instant.now().toString());
    return m;
  }

  @Override
  public void print(PrintStream out) {
    out.printf(
        "once bench: %s, transport %s%s%n",
        database, transport, settings.ordered() ? ", consumer ordered by key" : "");
    out.printf(
        "  shape: %d events, %d consumer workers x batch %d, %d relays x batch %d%n",
        settings.events(),
        settings.workers(),
        settings.batch(),
        settings.relays(),
        settings.relayBatch());
    out.printf("  ceiling A (database alone)  %10.0f events/s%n", ceilingDbEps);
    out.printf("  ceiling B (%s)%n", brokerCeilingKind());
    out.printf("                              %10.0f events/s%n", ceilingBrokerEps);
    out.printf("  ceiling C (hand-written)    %10.0f events/s%n", ceilingHandEps);
    out.printf("  Once, drain                 %10.0f events/s%n", once.onceEps());
    out.printf("  Once / C                    %10.1f %%%n", 100 * once.onceEps() / ceilingHandEps);
    if (E2eBench.ceilingVoid(once.onceEps(), ceilingHandEps)) {
      out.printf(
          "    ceiling C is void in this run: the hand-written pipeline ran slower than Once%n");
    }
    out.printf("  Once / A                    %10.1f %%%n", 100 * ratioDb());
    out.printf("  Once / B                    %10.1f %%%n", 100 * ratioBroker());
    out.printf(
        "  commit->consumed at %.0f events/s (%d events): p50 %.1f ms, p99 %.1f ms, max %.1f ms%n",
        once.pacedRate(), once.latencyEvents(), once.p50Ms(), once.p99Ms(), once.maxMs());
    out.printf(
        "    of which commit->confirmed by the broker: p50 %.1f ms, p99 %.1f ms%n",
        once.relayP50Ms(), once.relayP99Ms());
    out.printf(
        "  producers (batches of %d)   %10.0f events/s%n",
        settings.producerBatch(), once.producerEps());
    out.printf(
        "  effects %d, duplicate effects %d%n",
        once.effects(), once.effects() - once.distinctEffects());
    out.printf(
        "  transactions rolled back by a deadlock and run again: Once %d, A %d, C %d,"
            + " producers %d%n",
        rollbacks.once.get(),
        rollbacks.ceilingA.get(),
        rollbacks.ceilingC.get(),
        Rollbacks.PRODUCERS.get());
  }

  static double round(double v) {
    return Math.round(v * 10) / 10.0;
  }

  static double round3(double v) {
    return Math.round(v * 1000) / 1000.0;
  }
}
