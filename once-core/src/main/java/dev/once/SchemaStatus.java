package dev.once;

import java.time.Instant;
import java.util.List;

/**
 * What the history table {@value Schema#HISTORY_TABLE} of a schema says, next to what this Once
 * expects: read by {@link Schema#status}, printed by {@code once schema status}.
 *
 * @param schema the schema (MariaDB/MySQL: the database) looked at
 * @param dialect the database's dialect, e.g. {@code postgresql}
 * @param recorded whether the history table exists
 * @param applied the history's rows in the order they were installed (empty when not recorded)
 * @param expected the highest version this Once ships
 */
public record SchemaStatus(
    String schema, String dialect, boolean recorded, List<Applied> applied, int expected) {

  public SchemaStatus {
    applied = List.copyOf(applied);
  }

  /**
   * One row of the history, in Flyway's format.
   *
   * @param version the migration's version; 0 when the row has none (a Flyway schema marker)
   * @param type {@code SQL} for a migration that ran, {@code BASELINE} for a version recorded as
   *     already there
   * @param checksum the script's checksum as Flyway computes it; null for a baseline
   */
  public record Applied(
      int rank,
      int version,
      String description,
      String type,
      String script,
      Integer checksum,
      String installedBy,
      Instant installedOn,
      int executionMillis,
      boolean success) {}

  /** The highest version a successful row records; 0 when none. */
  public int appliedVersion() {
    return applied.stream().filter(Applied::success).mapToInt(Applied::version).max().orElse(0);
  }

  /** The rows of migrations that failed (MariaDB/MySQL: half-applied, their DDL committed). */
  public List<Applied> failed() {
    return applied.stream().filter(a -> !a.success()).toList();
  }

  /** Whether the schema is at the version this Once expects, with no failed migration. */
  public boolean upToDate() {
    return appliedVersion() == expected && failed().isEmpty();
  }

  /** Whether a newer Once migrated this schema: this one must not run on it. */
  public boolean newerThanCode() {
    return appliedVersion() > expected;
  }
}
