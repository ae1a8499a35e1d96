package dev.once.app.bench;

import java.io.PrintStream;
import javax.sql.DataSource;

/**
 * Earlier markers of the bench consumer ({@code earlier:N}), written with {@code generate_series}
 * in chunks of a million so that the bench consumer's own marker inserts meet a large inbox.
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
}
