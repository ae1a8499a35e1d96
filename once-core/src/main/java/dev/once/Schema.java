package dev.once;

import dev.once.internal.schema.SchemaFiles;
import dev.once.internal.schema.SchemaHistory;
import dev.once.internal.schema.SchemaPlace;
import dev.once.jdbc.Dialect;
import dev.once.jdbc.Dialects;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import javax.sql.DataSource;

/**
 * The Once schema of a dialect, as the migration files shipped in this jar under {@code
 * dev/once/schema/<dialect>/}, versioned: {@link #apply} brings a schema to this Once's version and
 * records each migration in {@value #HISTORY_TABLE}, in Flyway's format, so Flyway (with that
 * location and that history table) and {@code apply} can be used on one schema in turn.
 */
public final class Schema {
  /**
   * The history table every way of applying the schema records its migrations in, in Flyway's
   * format: apart from the application's own {@code flyway_schema_history}, so the versions never
   * collide.
   */
  public static final String HISTORY_TABLE = SchemaHistory.TABLE;

  private Schema() {}

  /** The classpath location of the dialect's migrations, e.g. for Flyway's {@code locations}. */
  public static String location(Dialect dialect) {
    return SchemaFiles.location(dialect);
  }

  /** Each migration's file name and text, in order. */
  public static Map<String, String> migrations(Dialect dialect) {
    return SchemaFiles.migrations(dialect);
  }

  /** All migrations as one script. */
  public static String sql(Dialect dialect) {
    StringBuilder all = new StringBuilder();
    migrations(dialect)
        .forEach(
            (name, text) -> all.append("-- ").append(name).append('\n').append(text).append('\n'));
    return all.toString();
  }

  /**
   * Checks, without changing anything, that the Once tables exist in the current schema of {@code
   * dataSource} and, when the schema has a history ({@value #HISTORY_TABLE}), that it is at this
   * Once's version: for read-only tools, which must never apply migrations to a database they only
   * look at.
   *
   * @throws SchemaMissingException naming the first missing table
   * @throws SchemaVersionException when the schema is newer than this Once, older, or a migration
   *     failed half-way
   */
  public static void check(DataSource dataSource) {
    dev.once.internal.schema.SchemaCheck.require(dataSource, Dialects.forDataSource(dataSource));
  }

  /** The highest schema version {@code dialect} ships with this Once. */
  public static int expectedVersion(Dialect dialect) {
    return SchemaFiles.expected(dialect);
  }

  /**
   * What the history of the current schema of {@code dataSource} records, next to the version this
   * Once expects. Changes nothing.
   */
  public static SchemaStatus status(DataSource dataSource) {
    Dialect dialect = Dialects.forDataSource(dataSource);
    try (Connection c = dataSource.getConnection()) {
      return SchemaHistory.status(c, dialect);
    } catch (SQLException e) {
      throw Dialects.failure("read the Once schema history", e);
    }
  }

  /**
   * Brings the current schema of {@code dataSource} to this Once's version (its dialect chosen by
   * {@link Dialects#forDataSource}); applying it again is a no-op. See {@link #apply(DataSource,
   * Dialect, int)}.
   */
  public static SchemaStatus apply(DataSource dataSource) {
    return apply(dataSource, Dialects.forDataSource(dataSource));
  }

  /** {@link #apply(DataSource, Dialect, int)} up to this Once's version. */
  public static SchemaStatus apply(DataSource dataSource, Dialect dialect) {
    return apply(dataSource, dialect, expectedVersion(dialect));
  }

  /**
   * Runs the migrations of {@code dialect} that the schema's history does not record, up to {@code
   * targetVersion}, in the current schema, and records each in {@value #HISTORY_TABLE} as Flyway
   * would (version, description, script, Flyway's checksum, success): Flyway pointed at {@link
   * #location} with that history table sees them as its own, and this method sees Flyway's. Two
   * processes applying at once take turns (a lock of the database's own).
   *
   * <p>On PostgreSQL it runs in one transaction: a failure leaves nothing. On MariaDB/MySQL each
   * DDL statement commits by itself: a failed migration is recorded as failed, and the next apply
   * refuses until it is repaired, as Flyway does.
   *
   * <p>A schema whose tables an earlier Once created without a history is recorded as a baseline at
   * the version its tables show, then brought up to date.
   *
   * @throws SchemaVersionException when the schema is newer than this Once, a migration failed
   *     earlier, or an applied script's checksum differs from this Once's file
   */
  public static SchemaStatus apply(DataSource dataSource, Dialect dialect, int targetVersion) {
    try (Connection c = dataSource.getConnection()) {
      return SchemaHistory.apply(c, dialect, targetVersion);
    } catch (SQLException e) {
      throw Dialects.failure("apply the Once schema", e);
    }
  }

  /**
   * Prepares the current schema for a migration tool that writes {@value #HISTORY_TABLE} (Flyway):
   * creates that table when it is missing and records a Once schema found without a history as a
   * baseline at the version its tables show. Changes no Once table. Once's own Flyway setups (the
   * starter) call it before Flyway; call it before yours.
   */
  public static SchemaStatus baseline(DataSource dataSource) {
    Dialect dialect = Dialects.forDataSource(dataSource);
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(true);
      SchemaPlace.ensure(c, dialect);
      SchemaHistory.lock(c, dialect);
      try {
        return SchemaHistory.baseline(c, dialect);
      } finally {
        SchemaHistory.unlock(c, dialect);
      }
    } catch (SQLException e) {
      throw Dialects.failure("record the Once schema's history", e);
    }
  }
}
