package dev.once.internal.schema;

import dev.once.OnceException;
import dev.once.SchemaStatus;
import dev.once.SchemaStatus.Applied;
import dev.once.SchemaVersionException;
import dev.once.internal.Jdbc;
import dev.once.internal.schema.SchemaFiles.Migration;
import dev.once.internal.schema.SchemaFiles.Probe;
import dev.once.jdbc.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The Once schema's history table, in Flyway's format ({@code flyway_schema_history}'s columns, the
 * script's checksum computed as Flyway does), so that {@code Schema.apply} and Flyway can take
 * turns on one schema: each sees what the other ran.
 */
public final class SchemaHistory {
  public static final String TABLE = "once_schema_history";
  private static final String LOCK = "once_schema";
  private static final java.time.Duration LOCK_WAIT = java.time.Duration.ofMinutes(5);
  static final String BASELINE_SCRIPT = "<< Flyway Baseline >>";

  /** Standard SQL both databases take: the columns and types of Flyway's own history table. */
  private static final List<String> CREATE =
      List.of(
          """
          CREATE TABLE once_schema_history (
              installed_rank INT           NOT NULL,
              version        VARCHAR(50),
              description    VARCHAR(200)  NOT NULL,
              type           VARCHAR(20)   NOT NULL,
              script         VARCHAR(1000) NOT NULL,
              checksum       INT,
              installed_by   VARCHAR(100)  NOT NULL,
              installed_on   TIMESTAMP     NOT NULL DEFAULT CURRENT_TIMESTAMP,
              execution_time INT           NOT NULL,
              success        BOOLEAN       NOT NULL,
              CONSTRAINT once_schema_history_pk PRIMARY KEY (installed_rank)
          )""",
          "CREATE INDEX once_schema_history_s_idx ON once_schema_history (success)");

  private SchemaHistory() {}

  /**
   * What the history of the connection's schema says (nothing applied, for a schema that does not
   * exist yet: {@code Schema.apply} creates it); changes nothing.
   */
  public static SchemaStatus status(Connection c, Dialect dialect) throws SQLException {
    String schema = dialect.status().currentSchema(c);
    int expected = SchemaFiles.expected(dialect);
    if (!dialect.status().tableExists(c, TABLE)) {
      return new SchemaStatus(schema, dialect.name(), false, List.of(), expected);
    }
    List<Applied> rows = new ArrayList<>();
    try (Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                """
                SELECT installed_rank, version, description, type, script, checksum,
                       installed_by, installed_on, execution_time, success
                  FROM once_schema_history ORDER BY installed_rank""")) {
      while (rs.next()) {
        Integer checksum = rs.getObject(6) == null ? null : rs.getInt(6);
        rows.add(
            new Applied(
                rs.getInt(1),
                version(rs.getString(2)),
                rs.getString(3),
                rs.getString(4),
                rs.getString(5),
                checksum,
                rs.getString(7),
                rs.getTimestamp(8).toInstant(),
                rs.getInt(9),
                rs.getBoolean(10)));
      }
    }
    return new SchemaStatus(schema, dialect.name(), true, rows, expected);
  }

  private static int version(String text) {
    if (text == null) {
      return 0;
    }
    try {
      return Integer.parseInt(text.strip());
    } catch (NumberFormatException e) {
      throw new OnceException(
          TABLE
              + " records version '"
              + text
              + "', which no Once migration has (Once's are 1, 2…)");
    }
  }

  /**
   * For {@code Once.build()}: a recorded schema must be at this Once's version. A schema without
   * the history table (applied by the application's own migrations) is left to the table check.
   */
  public static void requireCurrent(Connection c, Dialect dialect) throws SQLException {
    SchemaStatus status = status(c, dialect);
    if (!status.recorded()) {
      return;
    }
    SchemaFiles.refuseUnusable(status, SchemaFiles.of(dialect));
    if (status.appliedVersion() < status.expected()) {
      throw new SchemaVersionException(
          SchemaVersionException.Reason.OLDER,
          status.schema(),
          status.appliedVersion(),
          status.expected(),
          "the Once schema in '"
              + status.schema()
              + "' is at version "
              + status.appliedVersion()
              + ", this Once needs "
              + status.expected()
              + " (pending: "
              + SchemaFiles.labels(
                  SchemaFiles.pending(status, SchemaFiles.of(dialect), status.expected()))
              + "): apply them first (Schema.apply, 'once schema apply', or your migration tool"
              + " with the location "
              + SchemaFiles.location(dialect)
              + " and the history table "
              + TABLE
              + ")");
    }
  }

  /**
   * Creates the history table when it is missing, and records a Once schema found without one
   * (created by an earlier Once's {@code Schema.apply}, which kept no history, or baselined at 0 by
   * its Flyway setup) as a baseline at the version its tables show. Changes no Once table.
   */
  public static SchemaStatus baseline(Connection c, Dialect dialect) throws SQLException {
    List<Migration> migrations = SchemaFiles.of(dialect);
    if (!dialect.status().tableExists(c, TABLE)) {
      try (Statement s = c.createStatement()) {
        for (String statement : CREATE) {
          s.execute(statement);
        }
      }
    }
    SchemaStatus status = status(c, dialect);
    if (status.appliedVersion() == 0 && status.failed().isEmpty()) {
      int found = versionFound(c, dialect, migrations);
      if (found > 0) {
        recordBaseline(c, status, found);
        status = status(c, dialect);
      }
    }
    return status;
  }

  private static void recordBaseline(Connection c, SchemaStatus status, int version)
      throws SQLException {
    String description = "Once tables found without a history (V1 to V" + version + ")";
    int updated =
        Jdbc.update(
            c,
            "UPDATE once_schema_history SET version = ?, description = ? WHERE type = 'BASELINE'",
            String.valueOf(version),
            description);
    if (updated == 0) {
      insert(
          c,
          nextRank(status),
          String.valueOf(version),
          description,
          "BASELINE",
          BASELINE_SCRIPT,
          null,
          0,
          true);
    }
  }

  /** The highest version whose tables (and those of every earlier one) are there; 0 for none. */
  private static int versionFound(Connection c, Dialect dialect, List<Migration> migrations)
      throws SQLException {
    int found = 0;
    Migration firstMissing = null;
    for (Migration m : migrations) {
      if (exists(c, dialect, m.probe())) {
        if (firstMissing != null) {
          throw new SchemaVersionException(
              SchemaVersionException.Reason.DAMAGED,
              dialect.status().currentSchema(c),
              0,
              SchemaFiles.expected(dialect),
              "schema '"
                  + dialect.status().currentSchema(c)
                  + "' has no "
                  + TABLE
                  + " and holds what "
                  + m.label()
                  + " creates but not "
                  + describe(firstMissing.probe())
                  + " of "
                  + firstMissing.label()
                  + ": not a schema a Once created; repair it by hand (compare with 'once schema"
                  + " print') before applying");
        }
        found = m.version();
      } else if (firstMissing == null) {
        firstMissing = m;
      }
    }
    return found;
  }

  private static String describe(Probe p) {
    return p.column() == null ? "table " + p.table() : "column " + p.table() + "." + p.column();
  }

  private static boolean exists(Connection c, Dialect dialect, Probe p) throws SQLException {
    if (p.column() == null) {
      return dialect.status().tableExists(c, p.table());
    }
    try (PreparedStatement ps =
        c.prepareStatement(
            """
            SELECT count(*) FROM information_schema.columns
             WHERE table_schema = ? AND table_name = ? AND column_name = ?""")) {
      Jdbc.bind(ps, dialect.status().currentSchema(c), p.table(), p.column());
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() && rs.getLong(1) > 0;
      }
    }
  }

  /**
   * Applies, under the schema's migration lock, every migration above the recorded version up to
   * {@code target}, recording each; on PostgreSQL all in one transaction. A run with nothing
   * pending changes nothing.
   */
  public static SchemaStatus apply(Connection c, Dialect dialect, int target) throws SQLException {
    List<Migration> migrations = SchemaFiles.of(dialect);
    c.setAutoCommit(true);
    SchemaPlace.ensure(c, dialect);
    lock(c, dialect);
    try {
      c.setAutoCommit(false);
      Migration running = null;
      try {
        SchemaStatus status = baseline(c, dialect);
        SchemaFiles.refuseUnusable(status, migrations);
        int rank = nextRank(status);
        for (Migration m : SchemaFiles.pending(status, migrations, target)) {
          running = m;
          long start = System.nanoTime();
          try (Statement s = c.createStatement()) {
            for (String statement : SchemaFiles.statements(m.text())) {
              s.execute(statement);
            }
          }
          int millis = (int) ((System.nanoTime() - start) / 1_000_000);
          insert(
              c,
              rank++,
              String.valueOf(m.version()),
              m.description(),
              "SQL",
              m.script(),
              m.checksum(),
              millis,
              true);
          running = null;
        }
        c.commit();
        return status(c, dialect);
      } catch (SQLException | RuntimeException e) {
        Jdbc.rollbackQuietly(c);
        if (running != null && c.getMetaData().dataDefinitionCausesTransactionCommit()) {
          recordFailure(c, dialect, running);
        }
        throw e;
      }
    } finally {
      c.setAutoCommit(true);
      unlock(c, dialect);
    }
  }

  /**
   * Waits for the schema's migration lock, a session lock (kept across the transactions of a
   * MariaDB migration, whose DDL commits statement by statement), polled so that the wait is
   * bounded: two processes applying at once take turns (the flavour's named session lock).
   */
  public static void lock(Connection c, Dialect dialect) throws SQLException {
    long deadline = System.nanoTime() + LOCK_WAIT.toNanos();
    while (!dialect.flavour().tryLock(c, LOCK)) {
      if (System.nanoTime() > deadline) {
        throw new SQLException(
            "another session held the Once schema lock of '"
                + dialect.status().currentSchema(c)
                + "' for "
                + LOCK_WAIT.toSeconds()
                + " s (a migration still running?)",
            "55P03");
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new SQLException("interrupted while waiting for the Once schema lock", "57014", e);
      }
    }
  }

  public static void unlock(Connection c, Dialect dialect) throws SQLException {
    dialect.flavour().unlock(c, LOCK);
  }

  /**
   * Where DDL commits by itself (MariaDB/MySQL), a failed migration left part of its changes: a row
   * with success = false says so, as Flyway's would, and stops the next apply from guessing.
   */
  private static void recordFailure(Connection c, Dialect dialect, Migration m) {
    try {
      c.setAutoCommit(true);
      insert(
          c,
          nextRank(status(c, dialect)),
          String.valueOf(m.version()),
          m.description(),
          "SQL",
          m.script(),
          m.checksum(),
          0,
          false);
    } catch (SQLException | RuntimeException ignored) {
      // the apply's own failure is the one to report
    }
  }

  private static int nextRank(SchemaStatus status) {
    return status.applied().stream().mapToInt(Applied::rank).max().orElse(0) + 1;
  }

  private static void insert(
      Connection c,
      int rank,
      String version,
      String description,
      String type,
      String script,
      Integer checksum,
      int millis,
      boolean success)
      throws SQLException {
    String user = c.getMetaData().getUserName();
    Jdbc.update(
        c,
        """
        INSERT INTO once_schema_history
               (installed_rank, version, description, type, script, checksum, installed_by,
                execution_time, success)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)""",
        rank,
        version,
        description,
        type,
        script,
        checksum,
        user == null ? "?" : user,
        millis,
        success);
  }
}
