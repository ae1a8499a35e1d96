package dev.once.bench.e2e;

import dev.once.Event;
import dev.once.EventId;
import dev.once.jdbc.Dialects;
import dev.once.jdbc.StoreDialect;
import dev.once.jdbc.TransactionWaits;
import dev.once.scenario.WarehousePipeline;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

/**
 * Ceiling A: the database alone doing the consumer's SQL, no library. {@code workers} threads take
 * {@code batch} messages at a time and, per message, run exactly the statements Once runs — the
 * batch's markers as the database's dialect inserts them (one {@code INSERT … ON CONFLICT DO
 * NOTHING} on PostgreSQL, one {@code INSERT} per marker on MariaDB/MySQL), then per message the
 * effect row and the outgoing outbox row — then commit once per batch. No savepoints, no wake-up
 * notify, no broker: what a hand-written consumer on this database could reach at best with the
 * same batching.
 */
final class CeilingDb {
  /** Once's default number of outbox partitions (the bench leaves it so). */
  private static final int PARTITIONS = 16;

  private static final WarehousePipeline.Dispatch CEILING_DISPATCH =
      new WarehousePipeline.Dispatch(BenchTables.DISPATCH.jobsTable(), BenchTables.CEILING_OUT);

  private CeilingDb() {}

  /**
   * Events per second over {@code settings.events()} messages; a batch rolled back by a deadlock or
   * a lock wait timeout runs again and is counted in {@code rollbacks}.
   */
  static double run(DataSource dataSource, BenchSettings s, AtomicLong rollbacks)
      throws InterruptedException {
    BenchTables.reset(dataSource);
    StoreDialect store = Dialects.forDataSource(dataSource).store();
    AtomicLong next = new AtomicLong(1);
    long end = s.events() + 1L;
    long start = System.nanoTime();
    Threads.run(
        s.workers(),
        i -> {
          for (long from = next.getAndAdd(s.batch());
              from < end;
              from = next.getAndAdd(s.batch())) {
            long to = Math.min(end, from + s.batch());
            for (int attempt = 0; ; attempt++) {
              try {
                batch(dataSource, store, from, to);
                break;
              } catch (SQLException e) {
                if (attempt == 10 || !Rollbacks.isConflict(e)) {
                  throw e;
                }
                rollbacks.incrementAndGet();
              }
            }
          }
        });
    double eps = s.events() / ((System.nanoTime() - start) / 1e9);
    BenchTables.reset(dataSource); // its outbox rows must not reach a relay
    return eps;
  }

  private static void batch(DataSource dataSource, StoreDialect store, long from, long to)
      throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try (PreparedStatement effect = c.prepareStatement(BenchTables.DISPATCH.insertJob())) {
        Set<String> inserted = insertMarkers(c, store, from, to);
        for (long id = from; id < to; id++) {
          String eventId = "bench-paid:" + id;
          if (inserted.contains(eventId)) {
            effect.setLong(1, id);
            effect.setString(2, eventId);
            effect.executeUpdate();
            Event out = dispatchQueued(eventId, id);
            store.insertOutbox(c, out, out.partition(PARTITIONS));
          }
        }
      }
      c.commit();
    }
  }

  /** The DispatchQueued event the warehouse handler writes for an order, built as it builds it. */
  private static Event dispatchQueued(String incomingId, long orderId) {
    EventId id =
        EventId.derive(
            BenchTables.CEILING_CONSUMER,
            new EventId(incomingId),
            WarehousePipeline.DISPATCH_QUEUED);
    return WarehousePipeline.dispatchQueued(
        Event.builder().id(id).key(Long.toString(orderId)), CEILING_DISPATCH, orderId);
  }

  /** The batch's markers in one statement, as Once inserts them. */
  private static Set<String> insertMarkers(Connection c, StoreDialect store, long from, long to)
      throws SQLException {
    List<String> ids = new ArrayList<>();
    for (long id = from; id < to; id++) {
      ids.add("bench-paid:" + id);
    }
    Collections.sort(ids);
    return store.insertMarkers(c, TransactionWaits.NONE, BenchTables.CEILING_CONSUMER, ids);
  }
}
