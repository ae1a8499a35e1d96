package dev.once.app.demo;

import dev.once.app.common.UserError;
import dev.once.scenario.WarehouseTables;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * One demo at a time per database schema: a demo clears the demo tables when it starts, so a second
 * one would wipe the first one's data under it. Held as a session advisory lock on a connection of
 * its own for the whole run; a crashed demo's lock goes with its connection.
 */
final class DemoRunLock implements AutoCloseable {
  private static final String TRY_LOCK =
      "SELECT pg_try_advisory_lock(hashtext(current_schema() || '.once_demo_run'))";

  /** MariaDB/MySQL: a named lock of the session, per database. */
  private static final String TRY_LOCK_MARIADB =
      "SELECT GET_LOCK(concat('once_demo_run_', md5(database())), 0) = 1";

  private final Connection connection;

  private DemoRunLock(Connection connection) {
    this.connection = connection;
  }

  /** Takes the lock, or fails with a one-line explanation naming the database. */
  static DemoRunLock take(DataSource dataSource, String database) {
    try {
      Connection c = dataSource.getConnection();
      try (Statement s = c.createStatement();
          ResultSet rs =
              s.executeQuery(WarehouseTables.isMariaDb(c) ? TRY_LOCK_MARIADB : TRY_LOCK)) {
        if (rs.next() && rs.getBoolean(1)) {
          return new DemoRunLock(c);
        }
      }
      c.close();
      throw new UserError(
          "another once demo is running on "
              + database
              + "; it would clear the demo tables under it: wait for it to end, or give this one"
              + " a namespace of its own (--schema mine)");
    } catch (SQLException e) {
      throw new UserError("could not take the demo lock on " + database + ": " + e.getMessage(), e);
    }
  }

  @Override
  public void close() {
    try {
      connection.close(); // ends the session, and with it the lock
    } catch (SQLException ignored) {
      // the server drops the lock with the session either way
    }
  }
}
