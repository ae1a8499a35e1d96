package dev.once.app.bench;

import dev.once.internal.PostgresDialect;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

/**
 * Ceiling A: the database alone doing the consumer's SQL, no library. {@code workers} threads take
 * {@code batch} messages at a time and, per message, run exactly the statements Once runs — the
 * marker {@code INSERT … ON CONFLICT DO NOTHING}, the effect row, the outgoing outbox row — then
 * commit once per batch. No savepoints, no wake-up notify, no broker: what a hand-written consumer
 * on this database could reach at best with the same batching.
 */
final class CeilingDb {
  private static final PostgresDialect SQL = new PostgresDialect();

  private CeilingDb() {}

  /** Events per second over {@code settings.events()} messages. */
  static double run(DataSource dataSource, BenchSettings s) throws InterruptedException {
    BenchTables.reset(dataSource);
    AtomicLong next = new AtomicLong(1);
    long end = s.events() + 1L;
    long start = System.nanoTime();
    Threads.run(
        s.workers(),
        i -> {
          for (long from = next.getAndAdd(s.batch());
              from < end;
              from = next.getAndAdd(s.batch())) {
            batch(dataSource, from, Math.min(end, from + s.batch()));
          }
        });
    double eps = s.events() / ((System.nanoTime() - start) / 1e9);
    BenchTables.reset(dataSource); // its outbox rows must not reach a relay
    return eps;
  }

  private static void batch(DataSource dataSource, long from, long to) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try (PreparedStatement marker = c.prepareStatement(SQL.insertMarker());
          PreparedStatement effect = c.prepareStatement(BenchTables.INSERT_EFFECT);
          PreparedStatement outbox = c.prepareStatement(SQL.insertOutbox())) {
        Array noHeaders = c.createArrayOf("text", new String[0]);
        for (long id = from; id < to; id++) {
          String eventId = "bench-paid:" + id;
          marker.setString(1, BenchTables.CEILING_CONSUMER);
          marker.setString(2, eventId);
          if (marker.executeUpdate() == 1) {
            effect.setLong(1, id);
            effect.setString(2, eventId);
            effect.executeUpdate();
            outbox.setString(1, "bench-done:" + BenchTables.CEILING_CONSUMER + "/" + eventId);
            outbox.setString(2, BenchTables.CEILING_OUT);
            outbox.setString(3, Long.toString(id));
            outbox.setString(4, "BenchDone");
            outbox.setBytes(
                5, Pipeline.payload(id).getBytes(java.nio.charset.StandardCharsets.UTF_8));
            outbox.setArray(6, noHeaders);
            outbox.setInt(7, (int) (id % 16));
            outbox.executeUpdate();
          }
        }
      }
      c.commit();
    }
  }
}
