package dev.once.scenario;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the data holds for one order; a correct, finished order has 1, 1, 1, 1, 0 — a poison order
 * (dead-lettered on purpose by the demo) 0, 0, 0, 0, 0.
 */
public record OrderDetail(
    long orderId,
    boolean poison,
    long dispatchJobs,
    long notifications,
    long warehouseMarkers,
    long notifierMarkers,
    long outboxPending) {

  public Map<String, Object> toJson() {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("order_id", orderId);
    json.put("poison", poison);
    json.put("dispatch_jobs", dispatchJobs);
    json.put("notifications", notifications);
    json.put("warehouse_markers", warehouseMarkers);
    json.put("notifier_markers", notifierMarkers);
    json.put("outbox_pending", outboxPending);
    return json;
  }

  @Override
  public String toString() {
    return "order "
        + orderId
        + ": "
        + dispatchJobs
        + " dispatch jobs, "
        + notifications
        + " notifications, markers warehouse "
        + warehouseMarkers
        + " notifier "
        + notifierMarkers
        + ", outbox pending "
        + outboxPending
        + (poison ? " (poison: expected none)" : "");
  }
}
