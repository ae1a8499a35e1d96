package dev.once.bench.e2e;

import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * The hand-written pipeline's (ceiling C's) own tables ({@code bench_c_*}) on PostgreSQL and
 * MariaDB/MySQL, and the statements its producers, relays and consumers run on them.
 */
final class HandSchema {
  private HandSchema() {}

  static final String CREATE =
      """
      CREATE TABLE IF NOT EXISTS bench_c_orders (
          order_id   bigint      PRIMARY KEY,
          created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE IF NOT EXISTS bench_c_outbox (
          id          bigserial   PRIMARY KEY,
          event_id    text        NOT NULL UNIQUE,
          destination text        NOT NULL,
          event_key   text,
          event_type  text        NOT NULL,
          payload     bytea       NOT NULL,
          created_at  timestamptz NOT NULL DEFAULT now(),
          sent_at     timestamptz
      );
      CREATE INDEX IF NOT EXISTS bench_c_outbox_pending ON bench_c_outbox (id)
       WHERE sent_at IS NULL;
      CREATE TABLE IF NOT EXISTS bench_c_inbox (
          consumer_id text        NOT NULL,
          event_id    text        NOT NULL,
          created_at  timestamptz NOT NULL DEFAULT now(),
          PRIMARY KEY (consumer_id, event_id)
      );
      CREATE TABLE IF NOT EXISTS bench_c_effects (
          id         bigserial   PRIMARY KEY,
          order_id   bigint      NOT NULL,
          event_id   text        NOT NULL,
          created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE IF NOT EXISTS bench_c_notifications (
          id         bigserial   PRIMARY KEY,
          order_id   bigint      NOT NULL,
          event_id   text        NOT NULL,
          created_at timestamptz NOT NULL DEFAULT now()
      );
      """;

  static final String CLEAR =
      """
      TRUNCATE bench_c_orders, bench_c_outbox, bench_c_inbox, bench_c_effects,
               bench_c_notifications;
      """;

  /** The same tables on MariaDB/MySQL: the pending index is on (sent_at, id), NULLs first. */
  static final String CREATE_MARIADB =
      """
      CREATE TABLE IF NOT EXISTS bench_c_orders (
          order_id   bigint      PRIMARY KEY,
          created_at datetime(6) NOT NULL DEFAULT (UTC_TIMESTAMP(6))
      ) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
      CREATE TABLE IF NOT EXISTS bench_c_outbox (
          id          bigint       AUTO_INCREMENT PRIMARY KEY,
          event_id    varchar(200) NOT NULL UNIQUE,
          destination varchar(200) NOT NULL,
          event_key   varchar(200),
          event_type  varchar(200) NOT NULL,
          payload     longblob     NOT NULL,
          created_at  datetime(6)  NOT NULL DEFAULT (UTC_TIMESTAMP(6)),
          sent_at     datetime(6),
          INDEX bench_c_outbox_pending (sent_at, id)
      ) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
      CREATE TABLE IF NOT EXISTS bench_c_inbox (
          consumer_id varchar(200) NOT NULL,
          event_id    varchar(200) NOT NULL,
          created_at  datetime(6)  NOT NULL DEFAULT (UTC_TIMESTAMP(6)),
          PRIMARY KEY (consumer_id, event_id)
      ) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
      CREATE TABLE IF NOT EXISTS bench_c_effects (
          id         bigint       AUTO_INCREMENT PRIMARY KEY,
          order_id   bigint       NOT NULL,
          event_id   varchar(200) NOT NULL,
          created_at datetime(6)  NOT NULL DEFAULT (UTC_TIMESTAMP(6))
      ) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
      CREATE TABLE IF NOT EXISTS bench_c_notifications (
          id         bigint       AUTO_INCREMENT PRIMARY KEY,
          order_id   bigint       NOT NULL,
          event_id   varchar(200) NOT NULL,
          created_at datetime(6)  NOT NULL DEFAULT (UTC_TIMESTAMP(6))
      ) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
      """;

  static final String CLEAR_MARIADB =
      """
      TRUNCATE bench_c_orders;
      TRUNCATE bench_c_outbox;
      TRUNCATE bench_c_inbox;
      TRUNCATE bench_c_effects;
      TRUNCATE bench_c_notifications;
      """;

  /** ER_DUP_ENTRY: the unique key holds the value already (the statement alone is undone). */
  static final int DUPLICATE_KEY = 1062;

  /** How often a consumer transaction runs again after a deadlock or lock wait timeout. */
  static final int CONFLICT_RETRIES = 10;

  static final String INSERT_ORDER = "INSERT INTO bench_c_orders (order_id) VALUES (?)";
  static final String INSERT_OUTBOX =
      """
      INSERT INTO bench_c_outbox (event_id, destination, event_key, event_type, payload)
      VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (event_id) DO NOTHING
      """;
  static final String RELAY_SETTINGS =
      "SELECT set_config('synchronous_commit', 'off', true),"
          + " set_config('enable_seqscan', 'off', true)";
  static final String CLAIM_OUTBOX =
      """
      SELECT id, event_id, destination, event_key, event_type, payload
        FROM bench_c_outbox
       WHERE sent_at IS NULL
       ORDER BY id
       LIMIT ?
       FOR UPDATE SKIP LOCKED
      """;
  static final String MARK_SENT =
      "UPDATE bench_c_outbox SET sent_at = now() WHERE id = ANY(?::bigint[])";
  static final String INSERT_MARKERS =
      """
      INSERT INTO bench_c_inbox (consumer_id, event_id)
      SELECT ?, e FROM unnest(?::text[]) WITH ORDINALITY AS u(e, n) ORDER BY n
      ON CONFLICT DO NOTHING
      RETURNING event_id
      """;
  static final String PENDING = "SELECT count(*) FROM bench_c_outbox WHERE sent_at IS NULL";
  static final String INSERT_OUTBOX_MARIADB =
      """
      INSERT INTO bench_c_outbox (event_id, destination, event_key, event_type, payload)
      VALUES (?, ?, ?, ?, ?)
      """;
  static final String MARK_SENT_MARIADB =
      "UPDATE bench_c_outbox SET sent_at = UTC_TIMESTAMP(6) WHERE id IN (%s)";
  static final String INSERT_MARKER_MARIADB =
      "INSERT INTO bench_c_inbox (consumer_id, event_id) VALUES (?, ?)";

  /**
   * Every effect and marker of one hop in one statement: the batch's new markers, then the effect
   * of each event whose marker was new (PostgreSQL).
   */
  static final String INSERT_MARKERS_AND_EFFECTS =
      """
      WITH fresh AS (
        INSERT INTO bench_c_inbox (consumer_id, event_id)
        SELECT ?, e FROM unnest(?::text[]) WITH ORDINALITY AS u(e, n) ORDER BY n
        ON CONFLICT DO NOTHING
        RETURNING event_id)
      INSERT INTO %s (order_id, event_id)
      SELECT u.o, u.e FROM unnest(?::bigint[], ?::text[]) AS u(o, e)
        JOIN fresh ON fresh.event_id = u.e
      """;

  /**
   * Runs a prepared INSERT: true if it inserted its row. On PostgreSQL its {@code ON CONFLICT DO
   * NOTHING} reports a duplicate as 0 rows; on MariaDB/MySQL a duplicate key fails the statement
   * alone (error 1062), which is "not inserted". Every other error is thrown.
   */
  static boolean insertUnlessDuplicate(PreparedStatement ps) throws SQLException {
    try {
      return ps.executeUpdate() > 0;
    } catch (SQLException e) {
      if (e.getErrorCode() == DUPLICATE_KEY) {
        return false;
      }
      throw e;
    }
  }
}
