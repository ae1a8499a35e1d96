package dev.once.jdbc;

import dev.once.ConsumerActivity;
import dev.once.OperationStatus;
import dev.once.WorkloadStatus;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;

/** The workload status, activity, and the schema check. */
public interface StatusDialect {

  /**
   * What is waiting at {@code now}: unsent and parked outbox rows per destination, table-queue rows
   * per consumer group (none without a table queue), events waiting for a retry and open dead
   * letters per consumer, each with the age of its oldest row.
   */
  WorkloadStatus status(Connection c, Instant now) throws SQLException;

  /**
   * Operations by state with the age of each state's oldest, and at most {@code limit} UNKNOWN and
   * ABANDONED operations in detail, oldest first.
   */
  OperationStatus operationStatus(Connection c, Instant now, int limit) throws SQLException;

  /**
   * Per consumer, what it finished in {@code [from, to)}: markers written (completed), dead letters
   * made (dead), attempt rows whose last failure fell in the window (retried).
   */
  ConsumerActivity consumerActivity(Connection c, Instant from, Instant to) throws SQLException;

  /** The name of the schema (or database) the connection works in, for messages. */
  String currentSchema(Connection c) throws SQLException;

  /**
   * The schema the connection is set to work in, when it does not exist (PostgreSQL: no schema of
   * the {@code search_path}, which the URL's {@code currentSchema} sets, exists; MariaDB/MySQL: the
   * connection names no database); empty when it exists. The default finds none missing.
   */
  default java.util.Optional<MissingSchema> missingSchema(Connection c) throws SQLException {
    return java.util.Optional.empty();
  }

  /**
   * What to add after the schema's name in a message, where the database calls it otherwise, e.g.
   * {@code " (on MariaDB/MySQL the database is the schema)"}; empty by default.
   */
  default String schemaNote() {
    return "";
  }

  /** Whether {@code table} exists in the connection's current schema. */
  boolean tableExists(Connection c, String table) throws SQLException;
}
