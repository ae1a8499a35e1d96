package dev.once.bench.e2e;

import java.io.PrintStream;
import javax.sql.DataSource;

/**
 * Earlier markers of the bench consumer ({@code earlier:N}), written with {@code generate_series}
 * in chunks of a million (on MariaDB/MySQL: multi-row INSERTs of a thousand) so that the bench
 * consumer's own marker inserts meet a large inbox.
 */
final class MarkerHistory {
  private static final long CHUNK = 1_000_000;

  private final DataSource dataSource;
  private final PrintStream progress;

  MarkerHistory(DataSource dataSource, PrintStream progress) {
    this.dataSource = dataSource;
    this.progress = progress;
  }

  long inboxRows() {
    return BenchTables.count(dataSource, "SELECT count(*) FROM once_inbox");
  }

  void clear() {
    BenchTables.run(
        dataSource,
        "DELETE FROM once_inbox WHERE consumer_id = 'bench' AND event_id LIKE 'earlier:%'");
  }

  void fill(long markers) {
    if (BenchTables.isMariaDb(dataSource)) {
      fillMariaDb(markers);
      return;
    }
    long start = System.nanoTime();
    for (long from = 1; from <= markers; from += CHUNK) {
      long to = Math.min(markers, from + CHUNK - 1);
      BenchTables.run(
          dataSource,
          """
          INSERT INTO once_inbox (consumer_id, event_id)
          SELECT 'bench', 'earlier:' || g FROM generate_series(%d, %d) g
          """
              .formatted(from, to));
      progress.printf(
          "  %d earlier markers written (%.0f s)%n", to, (System.nanoTime() - start) / 1e9);
    }
    BenchTables.run(dataSource, "ANALYZE once_inbox");
  }

  private void fillMariaDb(long markers) {
    long start = System.nanoTime();
    int rows = 1000;
    for (long from = 1; from <= markers; from += rows) {
      long to = Math.min(markers, from + rows - 1);
      StringBuilder sql =
          new StringBuilder("INSERT INTO once_inbox (consumer_id, event_id) VALUES ");
      for (long n = from; n <= to; n++) {
        sql.append(n == from ? "" : ", ").append("('bench', 'earlier:").append(n).append("')");
      }
      BenchTables.run(dataSource, sql.toString());
      if (to % CHUNK == 0 || to == markers) {
        progress.printf(
            "  %d earlier markers written (%.0f s)%n", to, (System.nanoTime() - start) / 1e9);
      }
    }
    BenchTables.run(dataSource, "ANALYZE TABLE once_inbox");
  }
}
