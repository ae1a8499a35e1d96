package dev.once.bench.e2e;

import static dev.once.bench.e2e.HandSchema.insertUnlessDuplicate;

import dev.once.EventId;
import dev.once.bench.e2e.HandBroker.Msg;
import dev.once.scenario.WarehousePipeline;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

/**
 * One consumer worker of the hand-written pipeline: takes a batch, inserts its markers, writes each
 * new event's effect (and, on the first of two hops, its outgoing outbox row) in the same
 * transaction, commits, then acknowledges. On PostgreSQL a one-hop batch is one statement (markers
 * and effects in a {@code WITH … INSERT}) and the commit; on MariaDB one INSERT per marker and
 * effect, in event-id order, a deadlock or lock wait timeout running the transaction again.
 */
final class HandConsumer {
  private final DataSource dataSource;
  private final HandBroker broker;
  private final BenchSettings s;
  private final HandPipeline.Shape shape;
  private final boolean mariadb;
  private final AtomicLong conflicts;
  private final E2eTimings timings;
  private final HandPipeline.Signal outbox;
  private final HandSteps steps;

  HandConsumer(
      DataSource dataSource,
      HandBroker broker,
      BenchSettings s,
      HandPipeline.Shape shape,
      boolean mariadb,
      AtomicLong conflicts,
      E2eTimings timings,
      HandPipeline.Signal outbox,
      HandSteps steps) {
    this.dataSource = dataSource;
    this.broker = broker;
    this.s = s;
    this.shape = shape;
    this.mariadb = mariadb;
    this.conflicts = conflicts;
    this.timings = timings;
    this.outbox = outbox;
    this.steps = steps;
  }

  static String finalConsumer(HandPipeline.Shape shape) {
    return shape == HandPipeline.Shape.TWO_HOPS ? BenchTables.C_NOTIFIER : BenchTables.C_CONSUMER;
  }

  /** Runs until {@code running} says stop: poll, consume, signal the relays, ack, time. */
  void loop(
      String destination, String group, boolean emits, java.util.function.BooleanSupplier running)
      throws Exception {
    boolean last = group.equals(finalConsumer(shape));
    try (HandBroker.HandReceiver receiver = broker.receiver(destination, group)) {
      while (running.getAsBoolean()) {
        long t = System.nanoTime();
        List<Msg> got = receiver.poll(s.batch(), 100);
        if (got.isEmpty()) {
          steps.add(HandSteps.Step.CONSUMER_IDLE, 0, t);
          continue;
        }
        steps.add(HandSteps.Step.CONSUMER_POLL, got.size(), t);
        if (last) {
          timings.received(got.stream().map(m -> Long.parseLong(m.key())).toList());
        }
        t = System.nanoTime();
        consume(group, got, emits);
        steps.add(HandSteps.Step.CONSUMER_TX, got.size(), t);
        if (emits) {
          outbox.signal();
        }
        t = System.nanoTime();
        receiver.ack(got);
        steps.add(HandSteps.Step.CONSUMER_ACK, got.size(), t);
        if (last) {
          timings.effected(got.stream().map(m -> Long.parseLong(m.key())).toList());
        }
      }
    }
  }

  /** One consumer transaction, run again after a deadlock or lock wait timeout. */
  private void consume(String group, List<Msg> got, boolean emits) throws SQLException {
    for (int attempt = 0; ; attempt++) {
      try {
        consumeOnce(group, got, emits);
        return;
      } catch (SQLException e) {
        if (attempt == HandSchema.CONFLICT_RETRIES || !Rollbacks.isConflict(e)) {
          throw e;
        }
        conflicts.incrementAndGet();
      }
    }
  }

  private void consumeOnce(String group, List<Msg> got, boolean emits) throws SQLException {
    String effects =
        group.equals(BenchTables.C_NOTIFIER) ? "bench_c_notifications" : "bench_c_effects";
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        if (!mariadb && !emits) {
          markersAndEffects(c, group, effects, got);
        } else {
          markersThenEffects(c, group, effects, got, emits);
        }
        c.commit();
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      }
    }
  }

  /** PostgreSQL, no outgoing event: the batch's markers and effects in one statement. */
  private static void markersAndEffects(Connection c, String group, String effects, List<Msg> got)
      throws SQLException {
    // one per event id, in a fixed order: two batches never wait on each other's markers in a
    // cycle, and an event twice in one batch acts once
    java.util.TreeMap<String, Msg> byId = new java.util.TreeMap<>();
    got.forEach(m -> byId.putIfAbsent(m.id(), m));
    Msg[] sorted = byId.values().toArray(Msg[]::new);
    String[] ids = new String[sorted.length];
    Long[] orders = new Long[sorted.length];
    for (int i = 0; i < sorted.length; i++) {
      ids[i] = sorted[i].id();
      orders[i] = Long.parseLong(sorted[i].key());
    }
    try (PreparedStatement ps =
        c.prepareStatement(HandSchema.INSERT_MARKERS_AND_EFFECTS.formatted(effects))) {
      ps.setString(1, group);
      ps.setArray(2, c.createArrayOf("text", ids));
      ps.setArray(3, c.createArrayOf("bigint", orders));
      ps.setArray(4, c.createArrayOf("text", ids));
      ps.executeUpdate();
    }
  }

  /** The markers in one statement (PostgreSQL) or one each (MariaDB), then each new effect. */
  private void markersThenEffects(
      Connection c, String group, String effects, List<Msg> got, boolean emits)
      throws SQLException {
    String outDestination =
        shape == HandPipeline.Shape.DRAIN ? BenchTables.C_OUT : BenchTables.C_DISPATCH;
    Set<String> fresh = insertMarkers(c, group, got);
    try (PreparedStatement effect =
            c.prepareStatement("INSERT INTO " + effects + " (order_id, event_id) VALUES (?, ?)");
        PreparedStatement out =
            c.prepareStatement(
                mariadb ? HandSchema.INSERT_OUTBOX_MARIADB : HandSchema.INSERT_OUTBOX)) {
      for (Msg m : got) {
        if (!fresh.contains(m.id())) {
          continue; // a duplicate: its effect is already there
        }
        long orderId = Long.parseLong(m.key());
        effect.setLong(1, orderId);
        effect.setString(2, m.id());
        effect.executeUpdate();
        if (emits) {
          String id =
              EventId.derive(group, new EventId(m.id()), WarehousePipeline.DISPATCH_QUEUED).value();
          out.setString(1, id);
          out.setString(2, outDestination);
          out.setString(3, m.key());
          out.setString(4, "DispatchQueued");
          out.setBytes(5, ("{\"orderId\":" + orderId + "}").getBytes(StandardCharsets.UTF_8));
          insertUnlessDuplicate(out);
        }
      }
    }
  }

  private Set<String> insertMarkers(Connection c, String group, List<Msg> got) throws SQLException {
    String[] ids = got.stream().map(Msg::id).toArray(String[]::new);
    Arrays.sort(ids); // a fixed order: two batches never wait on each other's markers in a cycle
    Set<String> inserted = new HashSet<>();
    if (mariadb) { // one INSERT per marker; a duplicate key means "not inserted"
      try (PreparedStatement ps = c.prepareStatement(HandSchema.INSERT_MARKER_MARIADB)) {
        for (String id : ids) {
          ps.setString(1, group);
          ps.setString(2, id);
          if (insertUnlessDuplicate(ps)) {
            inserted.add(id);
          }
        }
      }
      return inserted;
    }
    try (PreparedStatement ps = c.prepareStatement(HandSchema.INSERT_MARKERS)) {
      ps.setString(1, group);
      ps.setArray(2, c.createArrayOf("text", ids));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          inserted.add(rs.getString(1));
        }
      }
    }
    return inserted;
  }
}
