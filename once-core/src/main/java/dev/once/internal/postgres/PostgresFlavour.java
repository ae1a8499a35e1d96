package dev.once.internal.postgres;

import dev.once.Tracing;
import dev.once.jdbc.Channel;
import dev.once.jdbc.Sql;
import dev.once.jdbc.SqlFlavour;
import dev.once.jdbc.SqlList;
import dev.once.jdbc.TransactionWaits;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BiConsumer;
import javax.sql.DataSource;

/**
 * PostgreSQL 14+: lists as one array parameter, headers as a text array, {@code ON CONFLICT DO
 * NOTHING}, advisory locks, {@code 'infinity'}, LISTEN/NOTIFY and its SQLState classes.
 */
public class PostgresFlavour implements SqlFlavour {

  /** Advisory lock namespace of the relay's partitions, made distinct per schema. */
  /** PostgreSQL's own statements bind through this flavour. */
  static final Sql SQL = new Sql(new PostgresFlavour());

  static final String RELAY_LOCK_SPACE = "hashtext(current_schema() || '.once_outbox')";

  /** The column beside {@code headers} that holds a message's packed {@code traceparent}. */
  static final String TRACE_COLUMN = "trace";

  @Override
  public String name() {
    return "postgresql";
  }

  @Override
  public List<String> schemaResources() {
    return List.of(
        "V1__once_core.sql",
        "V2__once_operations.sql",
        "V3__once_workload.sql",
        "V4__once_dead_letter_crash.sql",
        "V5__once_suspect.sql",
        "V6__once_request.sql",
        "V7__once_trace.sql",
        "V8__once_parked_key.sql",
        "V9__once_ordered_destination.sql",
        "V10__once_queue_parked.sql");
  }

  /** One array parameter, whatever the size: one statement plan. */
  @Override
  public String in(String column, SqlList list) {
    return column + " = ANY(?::" + list.sqlType() + "[])";
  }

  /**
   * A Java array, which pgjdbc binds itself in binary ({@code int8[]}, {@code int4[]}, {@code
   * varchar[]}; {@link #in} casts it to the list's type): {@code createArrayOf} looked the type up
   * twice and wrote the array as text ({@code docs/PERFORMANCE.md}, round 11).
   */
  @Override
  public int bindList(PreparedStatement ps, int index, SqlList list) throws SQLException {
    ps.setObject(index, javaArray(list.sqlType(), list.values()));
    return index + 1;
  }

  private static Object[] javaArray(String sqlType, List<?> values) {
    return switch (sqlType) {
      case "bigint" -> values.toArray(new Long[0]);
      case "integer", "int" -> values.toArray(new Integer[0]);
      default -> values.toArray(new String[0]);
    };
  }

  /**
   * An {@link OffsetDateTime} in UTC, which pgjdbc writes as a {@code timestamptz} without a
   * calendar; the standard {@code setTimestamp} made it format the time in the JVM's default time
   * zone through a {@code Calendar}, ~9 % of a relay thread's CPU ({@code docs/PERFORMANCE.md},
   * round 11). Every instant column of Once's PostgreSQL schema is a {@code timestamptz}.
   */
  @Override
  public void bindInstant(PreparedStatement ps, int index, Instant instant) throws SQLException {
    ps.setObject(index, OffsetDateTime.ofInstant(instant, ZoneOffset.UTC));
  }

  /**
   * A flat array: name, value, name, value, …; pgjdbc binds a {@code String[]} itself, in binary,
   * as {@code varchar[]}, which the {@code text[]} column takes as it is ({@code createArrayOf}
   * looked the type up twice per row and wrote the array as text; {@code docs/PERFORMANCE.md},
   * round 11).
   */
  @Override
  public Object encodeHeaders(Connection c, Map<String, String> headers) {
    return flat(headers, null);
  }

  /** The headers but {@code skipped}, as a flat array. */
  private static String[] flat(Map<String, String> headers, String skipped) {
    String[] flat = new String[(headers.size() - (skipped == null ? 0 : 1)) * 2];
    int i = 0;
    for (Map.Entry<String, String> h : headers.entrySet()) {
      if (!h.getKey().equals(skipped)) {
        flat[i++] = h.getKey();
        flat[i++] = h.getValue();
      }
    }
    return flat;
  }

  /** The headers' text array, and the trace context packed in a column of its own. */
  @Override
  public String headerColumns() {
    return "headers, " + TRACE_COLUMN;
  }

  /**
   * An empty headers array (an event without headers of its own: most) read as SQL null: pgjdbc
   * builds an array object, with a lock of its own, and parses it for every row a relay claims;
   * {@link #readHeaders} reads a null as no headers.
   */
  @Override
  public String headerColumnsRead() {
    return "nullif(headers, '{}') AS headers, " + TRACE_COLUMN;
  }

  @Override
  public String headerParameters() {
    return "?, ?";
  }

  /**
   * A well-formed {@code traceparent} goes to {@link #TRACE_COLUMN} in 26 bytes ({@link
   * PackedTraceparent}), the other headers to the text array; any other {@code traceparent} stays
   * in the array as it is.
   */
  @Override
  public int bindHeaders(PreparedStatement ps, int index, Map<String, String> headers)
      throws SQLException {
    byte[] trace = packedTrace(headers);
    ps.setObject(index, storedHeaders(headers, trace));
    ps.setBytes(index + 1, trace);
    return index + 2;
  }

  /** The {@link #TRACE_COLUMN} of {@code headers}: their traceparent packed, or null. */
  static byte[] packedTrace(Map<String, String> headers) {
    return PackedTraceparent.pack(headers.get(Tracing.TRACEPARENT));
  }

  /** The text array of {@code headers}, whose {@link #packedTrace} is {@code trace}. */
  static String[] storedHeaders(Map<String, String> headers, byte[] trace) {
    return flat(headers, trace == null ? null : Tracing.TRACEPARENT);
  }

  /** The text array, then the packed trace context when the row has one. */
  @Override
  public void readHeaders(ResultSet rs, String column, BiConsumer<String, Object> each)
      throws SQLException {
    Array array = rs.getArray(column);
    if (array != null) {
      Object[] flat = (Object[]) array.getArray();
      for (int i = 0; i < flat.length; i += 2) {
        Object value = i + 1 < flat.length ? flat[i + 1] : null;
        each.accept(flat[i] == null ? "" : flat[i].toString(), value);
      }
    }
    byte[] trace = rs.getBytes(TRACE_COLUMN);
    if (trace != null) {
      each.accept(Tracing.TRACEPARENT, PackedTraceparent.unpack(trace));
    }
  }

  @Override
  public String ignoreDuplicates(String conflictColumns) {
    return "ON CONFLICT (" + conflictColumns + ") DO NOTHING";
  }

  /** Parked is {@code next_attempt_at = 'infinity'}. */
  @Override
  public String never() {
    return "'infinity'";
  }

  @Override
  public boolean isTransient(SQLException e) {
    String state = e.getSQLState();
    if (state == null) {
      return false;
    }
    return state.equals("40001") // serialization_failure
        || state.equals("40P01") // deadlock_detected
        || state.equals("55P03") // lock_not_available: lock_timeout, see DatabaseTimeouts
        || state.startsWith("08") // connection exception
        || state.equals("57P01") // admin_shutdown
        || state.equals("57P03") // cannot_connect_now
        || state.equals("53300"); // too_many_connections
  }

  @Override
  public boolean isMissingTable(SQLException e) {
    return "42P01".equals(e.getSQLState()); // undefined_table
  }

  /** Transaction-scoped advisory locks: they end with the transaction or its connection. */
  @Override
  public List<Integer> lockPartitions(Connection c, List<Integer> partitions) throws SQLException {
    return SQL.ints(c, LOCK_PARTITIONS, (Object) partitions.toArray(new Integer[0]));
  }

  private static final String LOCK_PARTITIONS =
      """
      SELECT p FROM unnest(?::int[]) AS p
       WHERE pg_try_advisory_xact_lock(%s, p)
      """
          .formatted(RELAY_LOCK_SPACE);

  /** A session advisory lock keyed by the schema and the name. */
  @Override
  public boolean tryLock(Connection c, String name) throws SQLException {
    return Boolean.TRUE.equals(
        SQL.first(
            c,
            "SELECT pg_try_advisory_lock(hashtext(current_schema() || '.' || ?))",
            rs -> rs.getBoolean(1),
            name));
  }

  @Override
  public void unlock(Connection c, String name) throws SQLException {
    SQL.execute(c, "SELECT pg_advisory_unlock(hashtext(current_schema() || '.' || ?))", name);
  }

  /**
   * Asynchronous commit, and statements planned as on a large table: queue tables are often empty
   * when (auto)vacuum or analyze looks at them and full moments later; with those statistics the
   * planner picks a sequential scan and a sort for every claim, and a backlog then makes each claim
   * slower than the last.
   */
  @Override
  public void beginEngineTransaction(Connection c) throws SQLException {
    beginEngineTransaction(c, TransactionWaits.NONE);
  }

  /** The same statement, with the waits' bounds in it: no round trip of their own. */
  @Override
  public void beginEngineTransaction(Connection c, TransactionWaits waits) throws SQLException {
    SQL.execute(c, BEGIN_ENGINE, millis(waits.lockWait()), millis(waits.idleInTransaction()));
  }

  /**
   * {@link #beginEngineTransaction(Connection, TransactionWaits)}'s statement; its two parameters
   * are {@link #millis} of the lock wait and of the idle bound.
   */
  static final String BEGIN_ENGINE =
      """
      SELECT set_config('synchronous_commit', 'off', true),
             set_config('enable_seqscan', 'off', true),
             set_config('enable_bitmapscan', 'off', true),
             set_config('lock_timeout',
                        coalesce(?, current_setting('lock_timeout')), true),
             set_config('idle_in_transaction_session_timeout',
                        coalesce(?, current_setting('idle_in_transaction_session_timeout')), true)
      """;

  /** {@link #boundTransactionWaits}'s statement, with the parameters of {@link #BEGIN_ENGINE}. */
  static final String BOUND_WAITS =
      """
      SELECT set_config('lock_timeout', coalesce(?, current_setting('lock_timeout')), true),
             set_config('idle_in_transaction_session_timeout',
                        coalesce(?, current_setting('idle_in_transaction_session_timeout')), true)
      """;

  /** {@code lock_timeout} and {@code idle_in_transaction_session_timeout} of the session. */
  @Override
  public TransactionWaits sessionWaits(Connection c) throws SQLException {
    try (PreparedStatement ps =
            c.prepareStatement(
                """
                SELECT (SELECT setting::bigint FROM pg_settings WHERE name = 'lock_timeout'),
                       (SELECT setting::bigint FROM pg_settings
                         WHERE name = 'idle_in_transaction_session_timeout')
                """);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return new TransactionWaits(
          Duration.ofMillis(rs.getLong(1)), Duration.ofMillis(rs.getLong(2)));
    }
  }

  /** {@code set_config(…, true)} is {@code SET LOCAL}: it ends with the transaction. */
  @Override
  public boolean boundsTransactionWaits() {
    return true;
  }

  @Override
  public void boundTransactionWaits(Connection c, TransactionWaits waits) throws SQLException {
    SQL.execute(c, BOUND_WAITS, millis(waits.lockWait()), millis(waits.idleInTransaction()));
  }

  /** A bound in milliseconds as a setting's text; null (keep the session's) for none. */
  static String millis(Duration bound) {
    return bound.isZero() ? null : Long.toString(bound.toMillis());
  }

  @Override
  public boolean notifies() {
    return true;
  }

  /** The payload is the schema, a space and the sender's token (without a sender: the schema). */
  @Override
  public void notify(Connection c, Channel channel, String sender) throws SQLException {
    if (sender == null) {
      SQL.execute(c, "SELECT pg_notify(?, current_schema())", channelName(channel));
    } else {
      SQL.execute(c, NOTIFY_FROM, channelName(channel), sender);
    }
  }

  /** A notification naming its sender: parameters channel and the sender's token. */
  static final String NOTIFY_FROM = "SELECT pg_notify(?, current_schema() || ' ' || ?)";

  @Override
  public AutoCloseable listen(
      DataSource dataSource, Channel channel, String ownSender, Runnable onNotify) {
    String name = channelName(channel);
    String own = ownSender == null ? null : " " + ownSender;
    return PostgresListener.subscribe(
        WrappedPool.of(dataSource), dataSource, CHANNELS, name, own, onNotify);
  }

  /**
   * Every channel: one listener per data source LISTENs on all of them (see {@link
   * PostgresListener}).
   */
  private static final List<String> CHANNELS =
      java.util.Arrays.stream(Channel.values()).map(PostgresFlavour::channelName).toList();

  static String channelName(Channel channel) {
    return "once_" + channel.name().toLowerCase(Locale.ROOT);
  }
}
