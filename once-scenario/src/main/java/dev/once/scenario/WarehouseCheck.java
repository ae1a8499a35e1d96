package dev.once.scenario;

import dev.once.EventId;
import dev.once.spi.Transport;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * Judges a demo run by the data alone: per order, dispatch jobs, notifications and markers; markers
 * against effects; the backlog; dead letters of poison orders; operations without a known outcome;
 * and (for the demo) the providers' own ledgers. Never by counters kept while running.
 */
public final class WarehouseCheck {
  private static final String TOTALS =
      """
      WITH per_order AS (
        SELECT o.order_id,
               (SELECT count(*) FROM demo_dispatch_jobs j WHERE j.order_id = o.order_id) AS jobs,
               (SELECT count(*) FROM demo_notifications n WHERE n.order_id = o.order_id) AS notes
          FROM demo_orders o WHERE NOT o.poison),
      dead AS (
        SELECT d.event_id, o.poison, d.error_class
          FROM once_dead_letter d
          LEFT JOIN demo_orders o ON d.event_id = concat('order-paid:', o.order_id)
         WHERE d.consumer_id IN ('warehouse', 'notifier') OR d.destination IN ('orders', 'dispatch'))
      SELECT (SELECT count(*) FROM demo_orders)                                   AS orders,
             (SELECT count(*) FROM demo_orders WHERE poison)                      AS poison,
             (SELECT count(*) FROM dead)                                          AS dead_letters,
             (SELECT count(*) FROM dead WHERE poison)                             AS poison_dead,
             (SELECT count(*) FROM dead
               WHERE poison IS NULL AND error_class = 'dev.once.MalformedMessage') AS foreign_malformed,
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
             (SELECT count(*) FROM once_operation
               WHERE provider IN ('payments', 'mail')
                 AND state IN ('PENDING', 'IN_FLIGHT', 'UNKNOWN', 'ABANDONED'))   AS operations_unknown_left
      """;

  /**
   * Per order, everything that should be there exactly once (never, for a poison order), for the
   * orders where it is not.
   */
  private static final String BAD_ORDERS =
      """
      WITH per_order AS (
        SELECT o.order_id,
               o.poison,
               CASE WHEN o.poison THEN 0 ELSE 1 END AS expected,
               coalesce(j.n, 0) AS jobs,
               coalesce(n.n, 0) AS notes,
               (SELECT count(*) FROM once_inbox i
                 WHERE i.consumer_id = 'warehouse' AND i.event_id = concat(?, o.order_id)) AS w_markers,
               (SELECT count(*) FROM once_inbox i
                 WHERE i.consumer_id = 'notifier' AND i.event_id = concat(?, o.order_id))  AS n_markers,
               coalesce(p.n, 0) AS pending
          FROM demo_orders o
          LEFT JOIN (SELECT order_id, count(*) AS n FROM demo_dispatch_jobs GROUP BY order_id) j
                 USING (order_id)
          LEFT JOIN (SELECT order_id, count(*) AS n FROM demo_notifications GROUP BY order_id) n
                 USING (order_id)
          LEFT JOIN (SELECT event_key, count(*) AS n FROM once_outbox
                      WHERE sent_at IS NULL AND destination IN ('orders', 'dispatch')
                      GROUP BY event_key) p
                 ON p.event_key = concat(o.order_id))
      SELECT order_id, poison, jobs, notes, w_markers, n_markers, pending,
             count(*) OVER () AS total
        FROM per_order
       WHERE jobs <> expected OR notes <> expected OR w_markers <> expected
          OR n_markers <> expected OR pending > 0
       ORDER BY order_id
       LIMIT ?
      """;

  /**
   * How long the verdict's reads may wait for an answer. They read every order of the run: on a
   * loaded machine (load 45-50 on 2 cores, {@code once verify}'s 20 000 orders and 4 worker
   * processes) they outlasted the 30 s network timeout of the command's pools, and the run ended
   * with "could not read the demo tables: Read timed out". The pool puts its own back.
   */
  static final Duration READ_TIMEOUT = Duration.ofMinutes(5);

  /** Orders listed by name at most; the total is always counted. */
  public static final int LISTED_ORDERS = 20;

  private WarehouseCheck() {}

  /**
   * Reads the verdict; {@code expectedOrders} < 0 accepts whatever number of orders is there. The
   * queue depth comes from {@code transport}; {@code provider}: what the payment provider and the
   * mail relay say they did.
   */
  public static WarehouseVerdict run(
      DataSource dataSource, Transport transport, long expectedOrders, ProviderCounts provider) {
    return run(
        dataSource, Drain.read(dataSource, transport, Drain.WAREHOUSE), expectedOrders, provider);
  }

  /**
   * Reads the verdict from the database alone. The queue depth is what the table queue holds;
   * messages waiting in an external broker are not seen, but their orders show as missing effects
   * until they are processed.
   */
  public static WarehouseVerdict run(DataSource dataSource, long expectedOrders) {
    return run(dataSource, Drain.read(dataSource, Drain.WAREHOUSE), expectedOrders, null);
  }

  private static WarehouseVerdict run(
      DataSource dataSource, Drain drain, long expected, ProviderCounts provider) {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      c.setNetworkTimeout(Runnable::run, (int) READ_TIMEOUT.toMillis());
      WarehouseVerdict.Counts counts;
      try (ResultSet rs = s.executeQuery(TOTALS)) {
        rs.next();
        counts = counts(rs, drain);
      }
      List<OrderDetail> bad = new ArrayList<>();
      long total = 0;
      try (PreparedStatement ps = c.prepareStatement(BAD_ORDERS)) {
        ps.setString(1, "order-paid:");
        ps.setString(2, NOTIFIER_EVENT_PREFIX);
        ps.setInt(3, LISTED_ORDERS);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            bad.add(detail(rs));
            total = rs.getLong("total");
          }
        }
      }
      return new WarehouseVerdict(expected, counts, provider, bad, total, KeyedOrders.read(c));
    } catch (SQLException e) {
      throw new IllegalStateException("could not read the demo tables: " + e.getMessage(), e);
    }
  }

  /** The notifier's event ids are derived from the warehouse's: this prefix, then the order id. */
  private static final String NOTIFIER_EVENT_PREFIX =
      EventId.derive(WarehouseTables.WAREHOUSE, new EventId("order-paid:0"), "dispatch-queued")
          .value()
          .replaceAll("0$", "");

  private static WarehouseVerdict.Counts counts(ResultSet rs, Drain drain) throws SQLException {
    return new WarehouseVerdict.Counts(
        rs.getLong("orders"),
        rs.getLong("poison"),
        rs.getLong("dead_letters"),
        rs.getLong("poison_dead"),
        rs.getLong("foreign_malformed"),
        rs.getLong("poison_with_effect"),
        rs.getLong("jobs"),
        rs.getLong("notes"),
        rs.getLong("duplicate_effects"),
        rs.getLong("lost"),
        rs.getLong("warehouse_markers"),
        rs.getLong("notifier_markers"),
        rs.getLong("markers_without_effect"),
        rs.getLong("effects_without_marker"),
        drain.outboxPending(),
        drain.queued(),
        rs.getLong("operations_unknown_left"));
  }

  private static OrderDetail detail(ResultSet rs) throws SQLException {
    return new OrderDetail(
        rs.getLong("order_id"),
        rs.getBoolean("poison"),
        rs.getLong("jobs"),
        rs.getLong("notes"),
        rs.getLong("w_markers"),
        rs.getLong("n_markers"),
        rs.getLong("pending"));
  }
}
