package dev.once;

import dev.once.test.Services;
import dev.once.test.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

/**
 * VACUUM on a table until no dead row version is left, for a test that measures what a statement
 * reads (EXPLAIN's buffers). Dead versions stay in the indexes until VACUUM removes them, and it
 * cannot while a transaction older than them runs anywhere on the database: on a shared server
 * (someone's bench, another test run) a claim read the dead entries too (131 buffers against 43,
 * seen beside other sessions). Such a transaction ends, so VACUUM runs again until its cutoff has
 * passed them; one that never ends leaves the measure meaningless: skipped with one line, failed in
 * CI.
 */
final class Vacuum {
  private static final Pattern NOT_REMOVABLE =
      Pattern.compile("(\\d+) are dead but not yet removable");

  private Vacuum() {}

  /** {@code VACUUM (VERBOSE[, option]) table}, again until it reports no dead row kept. */
  static void untilClean(TestDatabase db, String option, String table) {
    long[] kept = {0};
    try {
      Awaitility.await("VACUUM removing the dead rows of " + table)
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(200))
          .until(() -> (kept[0] = keeping(db, option, table)) == 0);
    } catch (ConditionTimeoutException e) {
      Services.notHere(
          kept[0]
              + " dead rows of "
              + table
              + " not removable for 60 s: a transaction stays open on the server, and what a"
              + " statement reads cannot be measured beside it");
    }
  }

  /** One VACUUM: the dead row versions it could not remove yet. */
  private static long keeping(TestDatabase db, String option, String table) throws SQLException {
    long kept = 0;
    try (Connection c = db.dataSource().getConnection();
        Statement st = c.createStatement()) {
      st.execute("VACUUM (VERBOSE" + (option.isEmpty() ? "" : ", " + option) + ") " + table);
      for (SQLWarning w = st.getWarnings(); w != null; w = w.getNextWarning()) {
        Matcher m = NOT_REMOVABLE.matcher(w.getMessage());
        while (m.find()) {
          kept += Long.parseLong(m.group(1));
        }
      }
    }
    return kept;
  }
}
