package dev.once.scenario;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.sql.DataSource;

/**
 * Rows of Once's tables that the demo scenario does not own: other consumers' markers, retries,
 * dead letters and queued messages, other destinations' outbox rows, other providers' operations,
 * {@code applyIfNewer} versions. The demo, {@code once reset} and {@code once verify} clear the
 * rows of the demo's names only ({@link WarehouseTables}), but where others keep rows those names
 * may be theirs too: they refuse to run there unless told ({@code --force-shared}).
 *
 * <p>Counting reads at most {@value #CAP} rows per table (a shared table may hold millions); the
 * counts of such a table are then lower bounds, said with a {@code +}. Only names and counts are
 * shown, never an event id or a payload.
 */
public final class ForeignData {
  static final int CAP = 100_000;

  /** The flag that lets a command clear the demo's rows where others keep rows too. */
  public static final String FORCE_FLAG = "--force-shared";

  /**
   * The consumer and destination of {@code once demo --ordered} (once-app's {@code OrderedDemo}),
   * which shares the demo's namespace: its rows are the demo's too, not a reason to refuse (a
   * newcomer running {@code once demo --ordered} and then {@code once demo} was refused).
   */
  static final String ORDERED_DEMO = "order-status";

  private static final String DEMO_CONSUMERS =
      "('"
          + WarehouseTables.WAREHOUSE
          + "', '"
          + WarehouseTables.NOTIFIER
          + "', '"
          + ORDERED_DEMO
          + "')";
  private static final String DEMO_DESTINATIONS =
      "('"
          + WarehouseTables.ORDERS
          + "', '"
          + WarehouseTables.DISPATCH
          + "', '"
          + ORDERED_DEMO
          + "')";
  private static final String DEMO_PROVIDERS =
      "('" + WarehouseTables.PAYMENTS + "', '" + WarehouseTables.MAIL + "')";

  /**
   * What is counted: the table, the column naming the owner, its kind, one row in words, the demo's
   * rows.
   */
  private record Source(String table, String column, String owner, String what, String demo) {}

  private static final List<Source> SOURCES =
      List.of(
          new Source(
              "once_inbox",
              "consumer_id",
              "consumer",
              "marker",
              "consumer_id IN " + DEMO_CONSUMERS),
          new Source(
              "once_attempt",
              "consumer_id",
              "consumer",
              "retrying event",
              "consumer_id IN " + DEMO_CONSUMERS),
          new Source(
              "once_suspect",
              "consumer_id",
              "consumer",
              "suspected event",
              "consumer_id IN " + DEMO_CONSUMERS),
          new Source(
              "once_dead_letter",
              "consumer_id",
              "consumer",
              "dead letter",
              "consumer_id IN "
                  + DEMO_CONSUMERS
                  + " OR (consumer_id = '(relay)' AND destination IN "
                  + DEMO_DESTINATIONS
                  + ")"),
          new Source(
              "once_queue",
              "consumer_group",
              "consumer",
              "queued message",
              "consumer_group IN " + DEMO_CONSUMERS),
          new Source(
              "once_queue_binding",
              "consumer_group",
              "consumer",
              "queue binding",
              "consumer_group IN " + DEMO_CONSUMERS),
          new Source(
              "once_outbox",
              "destination",
              "destination",
              "outbox row",
              "destination IN " + DEMO_DESTINATIONS),
          new Source(
              "once_operation",
              "provider",
              "provider",
              "operation",
              "provider IN " + DEMO_PROVIDERS),
          new Source("once_version", "entity", "entity", "applyIfNewer version", "FALSE"));

  /** Owner ("consumer billing") → what → count, in a stable order. */
  private final Map<String, Map<String, Long>> found;

  /** The kinds of row ({@code what}) whose table had more than {@link #CAP} of them. */
  private final java.util.Set<String> capped;

  private ForeignData(Map<String, Map<String, Long>> found, java.util.Set<String> capped) {
    this.found = found;
    this.capped = capped;
  }

  /** Counts the rows not owned by the demo scenario in the Once tables of {@code dataSource}. */
  public static ForeignData find(DataSource dataSource) {
    Map<String, Map<String, Long>> found = new TreeMap<>();
    java.util.Set<String> capped = new java.util.HashSet<>();
    try (Connection c = dataSource.getConnection()) {
      for (Source s : SOURCES) {
        String sql =
            "SELECT owner, count(*) FROM (SELECT "
                + s.column()
                + " AS owner FROM "
                + s.table()
                + " WHERE NOT ("
                + s.demo()
                + ") LIMIT "
                + CAP
                + ") foreign_rows GROUP BY owner";
        long total = 0;
        try (PreparedStatement ps = c.prepareStatement(sql);
            ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            long n = rs.getLong(2);
            total += n;
            found
                .computeIfAbsent(
                    s.owner() + " " + printable(rs.getString(1)), k -> new LinkedHashMap<>())
                .merge(s.what(), n, Long::sum);
          }
        }
        if (total >= CAP) {
          capped.add(s.what());
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException(
          "could not look for other consumers' rows in the Once tables: " + e.getMessage(), e);
    }
    return new ForeignData(found, capped);
  }

  public boolean isEmpty() {
    return found.isEmpty();
  }

  /**
   * {@code consumer billing (1204 markers, 1 dead letter), destination invoices (17 outbox rows)}.
   */
  public String describe() {
    List<String> parts = new ArrayList<>();
    for (Map.Entry<String, Map<String, Long>> owner : found.entrySet()) {
      List<String> counts = new ArrayList<>();
      owner
          .getValue()
          .forEach(
              (what, n) ->
                  counts.add(
                      capped.contains(what)
                          ? n + "+ " + what + "s"
                          : n + " " + what + (n == 1 ? "" : "s")));
      parts.add(owner.getKey() + " (" + String.join(", ", counts) + ")");
    }
    int shown = Math.min(parts.size(), 20);
    String list = String.join(", ", parts.subList(0, shown));
    return parts.size() > shown ? list + " and " + (parts.size() - shown) + " more" : list;
  }

  /**
   * Fails with a message saying what was found and how to go on, unless nothing was or {@code
   * force}; a forced run on shared data is said on {@code note}.
   */
  public static void refuseUnlessForced(
      DataSource dataSource,
      String command,
      String database,
      boolean force,
      java.util.function.Consumer<String> note) {
    ForeignData foreign = find(dataSource);
    if (foreign.isEmpty()) {
      return;
    }
    String what =
        "the Once tables of "
            + database
            + " hold rows that are not the demo's: "
            + foreign.describe()
            + ".";
    if (force) {
      note.accept(
          command
              + ": "
              + FORCE_FLAG
              + ": "
              + what
              + " Clearing the demo's rows only (consumers warehouse and notifier, destinations"
              + " orders and dispatch, providers payments and mail).");
      return;
    }
    throw new IllegalStateException(
        command.replaceFirst("^once ", "")
            + " refused: "
            + what
            + " It clears every row of the demo's consumers (warehouse, notifier), destinations"
            + " (orders, dispatch) and providers (payments, mail), and where others keep rows"
            + " those names may be theirs. Run it in a namespace of its own (--schema NAME, e.g."
            + " --schema once_demo; a URL that names no schema means once_demo), or add "
            + FORCE_FLAG
            + " to clear the demo's rows here all the same.");
  }

  /** A name as stored, safe to print: control characters replaced, at most 80 characters. */
  private static String printable(String name) {
    if (name == null) {
      return "(null)";
    }
    String clean =
        name.codePoints()
            .map(ch -> Character.isISOControl(ch) ? '?' : ch)
            .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append)
            .toString();
    return clean.length() > 80 ? clean.substring(0, 80) + "…" : clean;
  }
}
