package dev.once.scenario;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What the data says about a run.
 *
 * @param expectedOrders orders the run committed, or -1 when unknown
 * @param counts the numbers read from the database
 * @param provider what the payment provider and the mail relay did, from their own ledger; null
 *     when the verdict is read from the database alone ({@code once check}, {@code once verify})
 * @param badOrders the first orders (by id) without exactly one dispatch job, one notification and
 *     one marker per consumer (none of these for a poison order), or with outbox rows pending
 * @param badOrderTotal how many such orders there are in all
 * @param keyed the orders placed through the demo's HTTP front, per key, per purchase and their
 *     events; null when none was
 */
public record WarehouseVerdict(
    long expectedOrders,
    Counts counts,
    ProviderCounts provider,
    List<OrderDetail> badOrders,
    long badOrderTotal,
    KeyedOrders keyed) {

  /** A verdict without orders placed over HTTP. */
  public WarehouseVerdict(
      long expectedOrders,
      Counts counts,
      ProviderCounts provider,
      List<OrderDetail> badOrders,
      long badOrderTotal) {
    this(expectedOrders, counts, provider, badOrders, badOrderTotal, null);
  }

  /**
   * Everything counted from the tables. queueDepth is -1 when the transport cannot tell;
   * operationsUnknownLeft counts the demo's operations still PENDING, IN_FLIGHT, UNKNOWN or
   * ABANDONED.
   */
  public record Counts(
      long orders,
      long poison,
      long deadLetters,
      long poisonDeadLetters,
      long poisonWithEffect,
      long dispatchJobs,
      long notifications,
      long duplicateEffects,
      long lost,
      long warehouseMarkers,
      long notifierMarkers,
      long markersWithoutEffect,
      long effectsWithoutMarker,
      long outboxPending,
      long queueDepth,
      long operationsUnknownLeft) {

    /** Outbox rows not yet published plus messages still queued (when the depth is known). */
    /** The exactly-once figures every report shares, under their JSON names. */
    public void putJson(Map<String, Object> json) {
      json.put("dispatch_jobs", dispatchJobs);
      json.put("notifications", notifications);
      json.put("duplicate_effects", duplicateEffects);
      json.put("lost", lost);
      json.put("markers", Map.of("warehouse", warehouseMarkers, "notifier", notifierMarkers));
      json.put("markers_without_effect", markersWithoutEffect);
      json.put("effects_without_marker", effectsWithoutMarker);
      json.put("outbox_pending", outboxPending);
      json.put("queue_depth", queueDepth);
    }

    public long pending() {
      return outboxPending + Math.max(0, queueDepth);
    }
  }

  /**
   * Every reason the run is not exactly-once and drained, or an order was not charged exactly once
   * at the provider; empty when it is.
   */
  public List<String> problems() {
    Counts c = counts;
    List<String> problems = new ArrayList<>();
    if (expectedOrders >= 0 && c.orders() != expectedOrders) {
      problems.add(c.orders() + " orders in demo_orders, expected " + expectedOrders);
    }
    if (c.duplicateEffects() > 0) {
      problems.add(c.duplicateEffects() + " duplicate effects");
    }
    if (c.lost() > 0) {
      problems.add(c.lost() + " orders without a dispatch job or a notification");
    }
    if (c.poisonDeadLetters() != c.poison()) {
      problems.add(
          c.poison() + " poison orders but " + c.poisonDeadLetters() + " of them dead-lettered");
    }
    if (c.deadLetters() != c.poisonDeadLetters()) {
      problems.add(
          (c.deadLetters() - c.poisonDeadLetters())
              + " dead letters of events that are not poison");
    }
    if (c.poisonWithEffect() > 0) {
      problems.add(c.poisonWithEffect() + " poison orders with a dispatch job or a notification");
    }
    long healthy = c.orders() - c.poison();
    if (c.warehouseMarkers() != healthy || c.notifierMarkers() != healthy) {
      problems.add(
          "markers (warehouse "
              + c.warehouseMarkers()
              + ", notifier "
              + c.notifierMarkers()
              + ") do not match "
              + healthy
              + " orders that are not poison");
    }
    if (c.markersWithoutEffect() > 0 || c.effectsWithoutMarker() > 0) {
      problems.add(
          c.markersWithoutEffect()
              + " markers without effect, "
              + c.effectsWithoutMarker()
              + " effects without marker");
    }
    if (c.outboxPending() > 0) {
      problems.add(c.outboxPending() + " outbox rows not yet published");
    }
    if (c.queueDepth() > 0) {
      problems.add(c.queueDepth() + " messages still queued");
    }
    if (c.operationsUnknownLeft() > 0) {
      problems.add(c.operationsUnknownLeft() + " operations whose outcome is not known");
    }
    if (provider != null) {
      problems.addAll(provider.problems(c.orders() - c.poison()));
    }
    if (keyed != null) {
      problems.addAll(keyed.problems());
    }
    return problems;
  }

  public boolean ok() {
    return problems().isEmpty();
  }
}
