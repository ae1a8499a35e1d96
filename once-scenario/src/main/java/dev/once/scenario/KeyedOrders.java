package dev.once.scenario;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The orders placed through the demo's HTTP front, counted from the tables: per {@code
 * Idempotency-Key}, per purchase (the client's own number for what it meant to buy once: its
 * ledger, the ground truth, as the providers' ledgers are for charges) and per order, its OrderPaid
 * events in the outbox.
 *
 * @param orders orders with a request key
 * @param keys distinct request keys among them
 * @param purchases distinct purchases among them
 * @param keyDoubles orders beyond the first of their key
 * @param purchaseDoubles orders beyond the first of their purchase (a retry that did not reuse its
 *     key, or no key check at all)
 * @param events OrderPaid outbox rows of these orders
 * @param ordersWithoutEvent orders with no OrderPaid row
 * @param storedResponses the demo client's keys in {@code once_request}
 */
public record KeyedOrders(
    long orders,
    long keys,
    long purchases,
    long keyDoubles,
    long purchaseDoubles,
    long events,
    long ordersWithoutEvent,
    long storedResponses) {

  /** The demo client's scope in {@code once_request}. */
  public static final String SCOPE = "once-demo";

  private static final String COUNTS =
      """
      SELECT (SELECT count(*) FROM demo_orders WHERE request_key IS NOT NULL)              AS orders,
             (SELECT count(DISTINCT request_key) FROM demo_orders)                         AS keys_,
             (SELECT count(DISTINCT purchase) FROM demo_orders
               WHERE request_key IS NOT NULL)                                              AS purchases,
             (SELECT count(*) FROM once_outbox b JOIN demo_orders o
                  ON b.event_id = concat('order-paid:', o.order_id)
               WHERE o.request_key IS NOT NULL AND b.destination = 'orders')               AS events,
             (SELECT count(*) FROM demo_orders o WHERE o.request_key IS NOT NULL
                 AND NOT EXISTS (SELECT 1 FROM once_outbox b
                                  WHERE b.event_id = concat('order-paid:', o.order_id)
                                    AND b.destination = 'orders'))                         AS without_event,
             (SELECT count(*) FROM once_request WHERE scope = 'once-demo')                 AS stored
      """;

  /** Null when no order was placed through the HTTP front (or the tables predate it). */
  static KeyedOrders read(Connection c) throws SQLException {
    if (!hasColumn(c, "demo_orders", "request_key")) {
      return null;
    }
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(COUNTS)) {
      rs.next();
      long orders = rs.getLong("orders");
      if (orders == 0) {
        return null;
      }
      long keys = rs.getLong("keys_");
      long purchases = rs.getLong("purchases");
      return new KeyedOrders(
          orders,
          keys,
          purchases,
          orders - keys,
          orders - purchases,
          rs.getLong("events"),
          rs.getLong("without_event"),
          rs.getLong("stored"));
    }
  }

  private static boolean hasColumn(Connection c, String table, String column) throws SQLException {
    try (ResultSet rs = c.getMetaData().getColumns(c.getCatalog(), null, table, column)) {
      while (rs.next()) {
        String schema = rs.getString("TABLE_SCHEM");
        if (schema == null || schema.equals(c.getSchema())) {
          return true;
        }
      }
    }
    return false;
  }

  /** Orders per key, per purchase and events per order: what is not exactly one. */
  public List<String> problems() {
    List<String> problems = new ArrayList<>();
    if (keyDoubles > 0) {
      problems.add(keyDoubles + " orders beyond the first of their Idempotency-Key");
    }
    if (purchaseDoubles > 0) {
      problems.add(
          purchaseDoubles
              + " purchases ordered more than once through the API (a retry with a new key?)");
    }
    if (events != orders || ordersWithoutEvent > 0) {
      problems.add(
          String.format(
              Locale.ROOT,
              "%d OrderPaid events for %d keyed orders (%d orders without one)",
              events,
              orders,
              ordersWithoutEvent));
    }
    return problems;
  }

  public Map<String, Object> toJson() {
    return Map.of(
        "orders",
        orders,
        "keys",
        keys,
        "purchases",
        purchases,
        "orders_beyond_first_per_key",
        keyDoubles,
        "orders_beyond_first_per_purchase",
        purchaseDoubles,
        "events",
        events,
        "orders_without_event",
        ordersWithoutEvent,
        "stored_responses",
        storedResponses);
  }

  @Override
  public String toString() {
    return String.format(
        Locale.ROOT,
        "%d orders for %d keys and %d purchases (%d doubles per key, %d per purchase), %d OrderPaid"
            + " events, %d stored responses",
        orders,
        keys,
        purchases,
        keyDoubles,
        purchaseDoubles,
        events,
        storedResponses);
  }
}
