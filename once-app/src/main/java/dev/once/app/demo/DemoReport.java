package dev.once.app.demo;

import dev.once.scenario.OrderDetail;
import dev.once.scenario.ProviderCounts;
import dev.once.scenario.WarehouseVerdict;
import dev.once.testkit.CrashPoint;
import java.io.PrintStream;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/** The outcome of a demo run, for a person or as one JSON object. */
public record DemoReport(
    DemoSettings settings,
    WarehouseVerdict verdict,
    Map<CrashPoint, Long> crashes,
    long duplicatesSuppressed,
    long retries,
    long duplicatesInjected,
    Duration took,
    boolean drainedInTime,
    HttpCounts http) {

  public boolean ok() {
    return drainedInTime && verdict.ok();
  }

  public double seconds() {
    return took.toMillis() / 1000.0;
  }

  public double eventsPerSecond() {
    return verdict.counts().orders() / Math.max(0.001, seconds());
  }

  public Map<String, Object> toJson(String database, String transport) {
    WarehouseVerdict.Counts c = verdict.counts();
    Map<String, Object> crashJson = new LinkedHashMap<>();
    crashes.forEach(
        (point, n) -> {
          if (DemoScenario.windows(settings).contains(point)) {
            crashJson.put(point.label(), n);
          }
        });
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("ok", ok());
    json.put("events", c.orders());
    c.putJson(json);
    json.put("poison", c.poison());
    json.put("dead_letters", c.deadLetters());
    json.put("retries", retries);
    json.put("max_attempts", settings.maxAttempts());
    json.put("duplicates_suppressed", duplicatesSuppressed);
    json.put("duplicates_injected", duplicatesInjected);
    json.put("crashes", crashJson);
    verdict.provider().putJson(json);
    json.put("operations_unknown_left", c.operationsUnknownLeft());
    if (http != null) {
      Map<String, Object> front = http.toJson();
      front.put("lost_response_rate", settings.lostResponseRate());
      front.put("retry_with_new_key", settings.retryWithNewKey());
      if (verdict.keyed() != null) {
        front.putAll(verdict.keyed().toJson());
      }
      json.put("http", front);
    }
    json.put("seconds", seconds());
    json.put("events_per_second", Math.round(eventsPerSecond() * 10) / 10.0);
    json.put("seed", settings.seed());
    json.put("crash_rate", settings.crashRate());
    json.put("duplicate_rate", settings.duplicateRate());
    json.put("poison_rate", settings.poisonRate());
    json.put("workers", settings.workers());
    json.put("database", database);
    json.put("transport", transport);
    json.put("problems", verdict.problems());
    json.put("bad_orders", verdict.badOrders().stream().map(OrderDetail::toJson).toList());
    return json;
  }

  /**
   * How long the run took and what that time is made of: a demo run's time is mostly the faults it
   * injects (each crash costs a worker restart and a redelivery, each provider fault a retry after
   * a backoff), so it is no measure of Once's speed, and the line says where that is measured.
   */
  String timeLine(long crashTotal) {
    ProviderCounts provider = verdict.provider();
    long providerFaults = provider == null ? 0 : provider.answersLost() + provider.serverErrors();
    String time =
        String.format(
            "  %-24s %.1f s end to end, %d workers per consumer",
            "time", seconds(), settings.workers());
    if (crashTotal + providerFaults + duplicatesInjected + retries == 0) {
      return time + "; no faults injected. Once's throughput: once bench";
    }
    return time
        + String.format(
            ", spent mostly on the faults above: %d crashes injected, %d provider faults"
                + " (answers lost, 503s), %d extra copies, %d retries.%n"
                + "  %-24s a figure of the fault injection, not of Once's speed: once bench"
                + " measures throughput",
            crashTotal, providerFaults, duplicatesInjected, retries, "");
  }

  /** Why the run allows as many attempts as it does. */
  static String attemptsNote(DemoSettings settings) {
    return String.format(
        "up to %d, from the crash rate (an injected crash in a delivery's run is charged like a"
            + " poison's): an order that is not poison is dead-lettered with a chance under %.0e",
        settings.maxAttempts(), DemoSettings.INNOCENT_DEAD_LETTER_CHANCE);
  }

  public void print(PrintStream out, String database, String transport) {
    WarehouseVerdict.Counts c = verdict.counts();
    long crashTotal = crashes.values().stream().mapToLong(Long::longValue).sum();
    out.printf("%nOnce demo: warehouse scenario on %s, transport %s%n", database, transport);
    out.printf("  %-24s %d%n", "events (orders)", c.orders());
    out.printf("  %-24s %d%n", "dispatch jobs", c.dispatchJobs());
    out.printf("  %-24s %d%n", "notifications", c.notifications());
    out.printf(
        "  %-24s warehouse %d, notifier %d (without effect %d, effects without marker %d)%n",
        "markers",
        c.warehouseMarkers(),
        c.notifierMarkers(),
        c.markersWithoutEffect(),
        c.effectsWithoutMarker());
    out.printf(
        "  %-24s %d effects, %d orders without one%n",
        "duplicates / lost", c.duplicateEffects(), c.lost());
    out.printf(
        "  %-24s %d orders fail every time; %d dead letters (%d of them poison); %d retries%n",
        "poison", c.poison(), c.deadLetters(), c.poisonDeadLetters(), retries);
    out.printf("  %-24s %s%n", "attempts per delivery", attemptsNote(settings));
    out.printf(
        "  %-24s %d deliveries found already processed (DUPLICATE)%n",
        "duplicates suppressed", duplicatesSuppressed);
    out.printf(
        "  %-24s %d extra copies published by the transport%n",
        "duplicates injected", duplicatesInjected);
    out.printf(
        "  %-24s %d (seed %d, rate %.2f)%n",
        "crashes injected", crashTotal, settings.seed(), settings.crashRate());
    crashes.forEach(
        (point, n) -> {
          if (DemoScenario.windows(settings).contains(point)) {
            out.printf("    %-48s %d%n", point.label(), n);
          }
        });
    out.printf(
        "  %-24s outbox %d pending, queue %s%n",
        "backlog", c.outboxPending(), c.queueDepth() < 0 ? "unknown" : c.queueDepth() + " waiting");
    verdict.provider().print(out);
    if (http != null) {
      printHttp(out);
    }
    out.printf(
        "  %-24s %d (PENDING, IN_FLIGHT, UNKNOWN or ABANDONED at the end)%n",
        "operations unknown left", c.operationsUnknownLeft());
    out.println(timeLine(crashTotal));
    if (ok()) {
      out.println(
          "  verdict                  OK: "
              + (http != null ? "one order per key and per purchase, one event per order; " : "")
              + "every order that is not poison has exactly one dispatch"
              + " job, one notification and one charge at the provider, markers match effects,"
              + " backlog drained"
              + (c.poison() > 0
                  ? "; every poison order is exactly one dead letter and has no effect"
                  : ""));
    } else {
      out.println("  verdict                  FAILED");
      if (!drainedInTime) {
        out.println("    - not drained within " + settings.timeout().toSeconds() + " s");
      }
      verdict.problems().forEach(p -> out.println("    - " + p));
      verdict.badOrders().forEach(b -> out.println("      " + b));
    }
  }

  private void printHttp(PrintStream out) {
    var client = http.client();
    out.printf(
        "  %-24s %d requests for %d purchases; %d answers lost (%d dropped after the commit, the"
            + " rest cut by a crash), %d retries with the %s key, %d replayed%n",
        "HTTP POST /orders",
        client.requests(),
        settings.events(),
        client.cut(),
        http.lostByServer(),
        client.retries(),
        settings.retryWithNewKey() ? "a NEW (broken)" : "the same",
        client.replayed());
    var keyed = verdict.keyed();
    if (keyed == null) {
      out.printf("  %-24s none placed%n", "orders per key");
      return;
    }
    out.printf(
        "  %-24s %d keys, %d orders: %d beyond the first of a key; %d purchases, %d beyond the first of a purchase;"
            + " %d OrderPaid events (%d orders without one); %d stored responses%n",
        "orders per key",
        keyed.keys(),
        keyed.orders(),
        keyed.keyDoubles(),
        keyed.purchases(),
        keyed.purchaseDoubles(),
        keyed.events(),
        keyed.ordersWithoutEvent(),
        keyed.storedResponses());
  }
}
