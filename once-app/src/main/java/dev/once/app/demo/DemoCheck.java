package dev.once.app.demo;

import dev.once.spi.Transport;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * Judges a demo run by the data alone: per order, dispatch jobs and notifications; markers against
 * effects; the backlog; operations without a known outcome; and the providers' own ledgers. Never
 * by counters kept while running.
 */
public final class DemoCheck {
  private static final String TOTALS =
      """
      WITH per_order AS (
        SELECT o.order_id,
               (SELECT count(*) FROM demo_dispatch_jobs j WHERE j.order_id = o.order_id) AS jobs,
               (SELECT count(*) FROM demo_notifications n WHERE n.order_id = o.order_id) AS notes
          FROM demo_orders o WHERE NOT o.poison),
      dead AS (
        SELECT d.event_id, o.poison
          FROM once_dead_letter d
          LEFT JOIN demo_orders o ON d.event_id = 'order-paid:' || o.order_id
         WHERE d.consumer_id IN ('warehouse', 'notifier') OR d.destination IN ('orders', 'dispatch'))
      SELECT (SELECT count(*) FROM demo_orders)                                   AS orders,
             (SELECT count(*) FROM demo_orders WHERE poison)                      AS poison,
             (SELECT count(*) FROM dead)                                          AS dead_letters,
             (SELECT count(*) FROM dead WHERE poison)                             AS poison_dead,
             (SELECT count(*) FROM demo_orders o WHERE o.poison AND (
                 EXISTS (SELECT 1 FROM demo_dispatch_jobs j WHERE j.order_id = o.order_id)
              OR EXISTS (SELECT 1 FROM demo_notifications n WHERE n.order_id = o.order_id)))
                                                                                  AS poison_with_effect,
             (SELECT count(*) FROM demo_dispatch_jobs)                            AS jobs,
             (SELECT count(*) FROM demo_notifications)                            AS notes,
             (SELECT coalesce(sum(greatest(jobs - 1, 0) + greatest(notes - 1, 0)), 0)
                FROM per_order)                                                   AS duplicate_effects,
             (SELECT count(*) FROM per_order WHERE jobs = 0 OR notes = 0)         AS lost,
             (SELECT count(*) FROM once_inbox WHERE consumer_id = 'warehouse')    AS warehouse_markers,
             (SELECT count(*) FROM once_inbox WHERE consumer_id = 'notifier')     AS notifier_markers,
             (SELECT count(*) FROM once_inbox i
               WHERE i.consumer_id = 'warehouse'
                 AND NOT EXISTS (SELECT 1 FROM demo_dispatch_jobs j WHERE j.event_id = i.event_id))
           + (SELECT count(*) FROM once_inbox i
               WHERE i.consumer_id = 'notifier'
                 AND NOT EXISTS (SELECT 1 FROM demo_notifications n WHERE n.event_id = i.event_id))
                                                                                  AS markers_without_effect,
             (SELECT count(*) FROM demo_dispatch_jobs j
               WHERE NOT EXISTS (SELECT 1 FROM once_inbox i
                                  WHERE i.consumer_id = 'warehouse' AND i.event_id = j.event_id))
           + (SELECT count(*) FROM demo_notifications n
               WHERE NOT EXISTS (SELECT 1 FROM once_inbox i
                                  WHERE i.consumer_id = 'notifier' AND i.event_id = n.event_id))
                                                                                  AS effects_without_marker,
             (SELECT count(*) FROM once_outbox
               WHERE sent_at IS NULL AND destination IN ('orders', 'dispatch'))   AS outbox_pending,
             (SELECT count(*) FROM once_operation
               WHERE provider IN ('payments', 'mail')
                 AND state IN ('PENDING', 'IN_FLIGHT', 'UNKNOWN', 'ABANDONED'))   AS operations_unknown_left
      """;

  private static final String BAD_ORDERS =
      """
      SELECT o.order_id,
             (SELECT count(*) FROM demo_dispatch_jobs j WHERE j.order_id = o.order_id) AS jobs,
             (SELECT count(*) FROM demo_notifications n WHERE n.order_id = o.order_id) AS notes,
             o.poison
        FROM demo_orders o
       WHERE ((SELECT count(*) FROM demo_dispatch_jobs j WHERE j.order_id = o.order_id)
               <> CASE WHEN o.poison THEN 0 ELSE 1 END)
          OR ((SELECT count(*) FROM demo_notifications n WHERE n.order_id = o.order_id)
               <> CASE WHEN o.poison THEN 0 ELSE 1 END)
       ORDER BY o.order_id
       LIMIT 20
      """;

  private DemoCheck() {}

  /**
   * Reads the verdict; {@code expectedOrders} < 0 accepts whatever number of orders is there.
   * {@code provider}: what the payment provider and the mail relay say they did.
   */
  public static DemoVerdict run(
      DataSource dataSource, Transport transport, long expectedOrders, ProviderCounts provider) {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      DemoVerdict.Counts counts;
      try (ResultSet rs = s.executeQuery(TOTALS)) {
        rs.next();
        counts =
            new DemoVerdict.Counts(
                rs.getLong("orders"),
                rs.getLong("poison"),
                rs.getLong("dead_letters"),
                rs.getLong("poison_dead"),
                rs.getLong("poison_with_effect"),
                rs.getLong("jobs"),
                rs.getLong("notes"),
                rs.getLong("duplicate_effects"),
                rs.getLong("lost"),
                rs.getLong("warehouse_markers"),
                rs.getLong("notifier_markers"),
                rs.getLong("markers_without_effect"),
                rs.getLong("effects_without_marker"),
                rs.getLong("outbox_pending"),
                queueDepth(transport),
                rs.getLong("operations_unknown_left"));
      }
      List<String> bad = new ArrayList<>();
      try (ResultSet rs = s.executeQuery(BAD_ORDERS)) {
        while (rs.next()) {
          bad.add(
              "order "
                  + rs.getLong(1)
                  + ": "
                  + rs.getLong(2)
                  + " dispatch jobs, "
                  + rs.getLong(3)
                  + " notifications"
                  + (rs.getBoolean(4) ? " (poison: expected none)" : ""));
        }
      }
      return new DemoVerdict(expectedOrders, counts, provider, bad);
    } catch (SQLException e) {
      throw new IllegalStateException("could not read the demo tables: " + e.getMessage(), e);
    }
  }

  /** Messages still waiting in the demo's queues; -1 when the transport cannot tell. */
  static long queueDepth(Transport transport) {
    long total = 0;
    for (String[] q :
        new String[][] {
          {DemoTables.ORDERS, DemoTables.WAREHOUSE}, {DemoTables.DISPATCH, DemoTables.NOTIFIER}
        }) {
      var depth = transport.depth(q[0], q[1]);
      if (depth.isEmpty()) {
        return -1;
      }
      total += depth.getAsLong();
    }
    return total;
  }
}
