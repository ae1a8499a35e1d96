package dev.once.app.proof;

import dev.once.scenario.WarehouseVerdict;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a verify run came to: the check's verdict, and per kind of kill what happened.
 *
 * @param totals received, redelivered, processed, duplicate over every worker that ran
 */
record VerifyResult(
    WarehouseVerdict verdict,
    Map<String, WindowResult> windows,
    long[] totals,
    double seconds,
    List<String> unexpectedExits) {

  boolean ok() {
    return verdict.ok();
  }

  long kills() {
    return windows.values().stream().mapToLong(w -> w.kills + w.notReached).sum();
  }

  double eventsPerSecond() {
    return verdict.counts().orders() / Math.max(0.001, seconds);
  }

  Map<String, Object> toJson(VerifySettings settings, String database, String transport) {
    WarehouseVerdict.Counts c = verdict.counts();
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("ok", ok());
    json.put("events", c.orders());
    json.put("kills", kills());
    json.put("duplicate_effects", c.duplicateEffects());
    json.put("lost", c.lost());
    json.put("pending", c.pending());
    json.put("seconds", Math.round(seconds * 10) / 10.0);
    json.put("events_per_second", Math.round(eventsPerSecond() * 10) / 10.0);
    Map<String, Object> perWindow = new LinkedHashMap<>();
    windows.forEach((k, w) -> perWindow.put(k, w.toJson()));
    json.put("windows", perWindow);
    json.put("deliveries_received", totals[0]);
    json.put("redeliveries_seen", totals[1]);
    json.put("processed", totals[2]);
    json.put("duplicates_suppressed", totals[3]);
    json.put("unexpected_exits", unexpectedExits);
    json.put("workers", settings.workers());
    json.put("seed", settings.seed());
    json.put("database", database);
    json.put("transport", transport);
    json.put("check", CheckReport.toJson(verdict));
    return json;
  }

  void print(PrintWriter out, VerifySettings settings, String database, String transport) {
    out.printf(
        "%nOnce verify: %d worker processes on %s, transport %s%n",
        settings.workers(), database, transport);
    out.printf(
        "  %-40s %6s %9s %13s %11s %8s%n",
        "kill", "kills", "missed", "redeliveries", "duplicates", "time");
    windows.forEach(
        (k, w) ->
            out.printf(
                "  %-40s %6d %9d %13d %11d %7.1fs%n",
                k, w.kills, w.notReached, w.redeliveries, w.duplicates, w.seconds));
    out.printf(
        "  %-40s %6d   (missed: window not reached in 10 s, SIGKILLed instead)%n",
        "total", kills());
    out.printf(
        "  whole run: %d deliveries received, %d redeliveries seen, %d processed, %d duplicates"
            + " suppressed%n",
        totals[0], totals[1], totals[2], totals[3]);
    if (!unexpectedExits.isEmpty()) {
      out.println(
          "  unexpected exits (see "
              + settings.logs()
              + "): "
              + String.join(", ", unexpectedExits));
    }
    out.printf("  time: %.1f s, %.0f orders/s end to end%n", seconds, eventsPerSecond());
    CheckReport.print(verdict, out);
    out.flush();
  }
}
