package dev.once.app.proof;

import dev.once.scenario.OrderDetail;
import dev.once.scenario.WarehouseVerdict;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.Map;

/** A {@link WarehouseVerdict} as {@code once check} (and {@code once verify}) print it. */
final class CheckReport {
  private CheckReport() {}

  static Map<String, Object> toJson(WarehouseVerdict verdict) {
    WarehouseVerdict.Counts c = verdict.counts();
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("ok", verdict.ok());
    json.put("orders", c.orders());
    json.put("pending", c.pending());
    c.putJson(json);
    if (verdict.keyed() != null) {
      json.put("http", verdict.keyed().toJson());
    }
    json.put("problems", verdict.problems());
    json.put("bad_order_total", verdict.badOrderTotal());
    json.put("bad_orders", verdict.badOrders().stream().map(OrderDetail::toJson).toList());
    return json;
  }

  static void print(WarehouseVerdict verdict, PrintWriter out) {
    WarehouseVerdict.Counts c = verdict.counts();
    out.printf("  %-22s %d%n", "orders", c.orders());
    out.printf(
        "  %-22s %d dispatch jobs, %d notifications%n",
        "effects", c.dispatchJobs(), c.notifications());
    out.printf(
        "  %-22s warehouse %d, notifier %d (without effect %d; effects without marker %d)%n",
        "markers",
        c.warehouseMarkers(),
        c.notifierMarkers(),
        c.markersWithoutEffect(),
        c.effectsWithoutMarker());
    out.printf(
        "  %-22s %d duplicate effects, %d orders missing an effect%n",
        "exactly once", c.duplicateEffects(), c.lost());
    out.printf(
        "  %-22s %d (outbox %d, queued %d)%n",
        "pending", c.pending(), c.outboxPending(), Math.max(0, c.queueDepth()));
    if (verdict.keyed() != null) {
      out.printf("  %-22s %s%n", "orders over HTTP", verdict.keyed());
    }
    if (verdict.ok()) {
      out.println(
          "  verdict                OK: every order processed exactly once, backlog drained");
      return;
    }
    out.println("  verdict                FAILED");
    verdict.problems().forEach(p -> out.println("    - " + p));
    out.printf(
        "  orders not exactly once or not finished: %d%s%n",
        verdict.badOrderTotal(),
        verdict.badOrderTotal() > verdict.badOrders().size()
            ? " (first " + verdict.badOrders().size() + " listed)"
            : "");
    verdict.badOrders().forEach(b -> out.println("    " + b));
  }
}
