package dev.once.testkit;

import static dev.once.jdbc.TransactionWaits.NONE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.once.DeadLetter;
import dev.once.DeadLetterFilter;
import dev.once.Event;
import dev.once.OperationState;
import dev.once.jdbc.DeadLetterQuery;
import dev.once.jdbc.Dialect;
import dev.once.jdbc.Lease;
import dev.once.jdbc.OperationInsert;
import dev.once.jdbc.OperationRow;
import dev.once.jdbc.OutboxRow;
import dev.once.jdbc.QueueClaim;
import dev.once.jdbc.RetentionDialect.Retained;
import dev.once.spi.Delivery;
import dev.once.spi.RawMessage;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every dialect must have, as tests on a real database: the flavour's primitives
 * (instants, lists, duplicate keys, missing tables, locks) and each part's statements. Subclass it
 * with a data source whose schema holds Once's tables ({@code Schema.apply}) and the dialect under
 * test; a new database's dialect is ready for the guarantee tests when its subclass passes. Each
 * test works under names of its own, so one schema serves the whole class.
 *
 * <p>A flat suite: this one abstract class, and one small subclass per database. The tests are
 * grouped by concern in the interfaces it implements side by side ({@link FlavourContract}, {@link
 * StoreDialectContract}, {@link AdminDialectContract}, {@link OrderedQueueContract}, over {@link
 * ContractFixture}); this class holds retention, status, operations and the table queue.
 */
public abstract class DialectContract
    implements FlavourContract, StoreDialectContract, AdminDialectContract, OrderedQueueContract {

  /** A data source whose current schema holds Once's tables. */
  @Override
  public abstract DataSource dataSource();

  /** The dialect under test. */
  @Override
  public abstract Dialect dialect();

  // ---- retention

  @Test
  void retentionDeletesAtMostItsLimitOfOldRowsAndNoNewOnes() throws SQLException {
    String consumer = unique("c");
    tx(c -> dialect().store().insertMarkers(c, NONE, consumer, List.of("a", "b", "c")));
    Instant past = now().minusSeconds(3600);
    assertEquals(0, count(c -> dialect().retention().deleteOld(c, Retained.MARKERS, past, 10)));
    Instant future = now().plusSeconds(3600);
    int first = tx(c -> dialect().retention().deleteOld(c, Retained.MARKERS, future, 2));
    assertEquals(2, first, "at most the limit");
    for (Retained what : Retained.values()) {
      tx(c -> dialect().retention().deleteOld(c, what, future, 100000)); // each statement runs
    }
    assertEquals(
        Set.of("a", "b", "c"),
        Set.copyOf(
            tx(c -> dialect().store().insertMarkers(c, NONE, consumer, List.of("a", "b", "c")))),
        "all deleted");
  }

  // ---- status and the schema check

  @Test
  void theSchemaCheckFindsOnceTablesAndNoOthers() throws SQLException {
    assertTrue(yes(c -> dialect().status().tableExists(c, "once_inbox")));
    assertFalse(yes(c -> dialect().status().tableExists(c, "once_no_such_table")));
    assertNotEquals("?", tx(c -> dialect().status().currentSchema(c)));
  }

  // ---- operations

  @Test
  void anOperationIsInsertedOnceAndClaimedByOneReconcilerAtATime() throws SQLException {
    String provider = unique("p");
    Instant now = now();
    String id = unique("op");
    OperationInsert insert = new OperationInsert(id, provider, "key-" + id, "fp", "{}", now);
    assertTrue(yes(c -> dialect().operations().insert(c, insert)));
    assertFalse(yes(c -> dialect().operations().insert(c, insert)), "known id");
    assertEquals(
        OperationState.PENDING, tx(c -> dialect().operations().find(c, id, false)).state());
    Lease lease = new Lease("owner-1", now.plusSeconds(60), now.plusSeconds(1));
    List<OperationRow> claimed;
    try (Connection a = dataSource().getConnection()) {
      a.setAutoCommit(false);
      claimed = dialect().operations().claimDue(a, provider, 10, lease);
      assertEquals(List.of(id), claimed.stream().map(OperationRow::id).toList());
      assertEquals(OperationState.PENDING, claimed.get(0).state(), "as it was before the claim");
      Lease other = new Lease("owner-2", now.plusSeconds(60), now.plusSeconds(1));
      assertEquals(
          List.of(), tx(c -> dialect().operations().claimDue(c, provider, 10, other)), "held");
      a.commit();
    }
    OperationRow row = tx(c -> dialect().operations().find(c, id, true));
    assertEquals(OperationState.IN_FLIGHT, row.state());
    assertEquals("owner-1", row.owner());
    assertEquals(1, row.view().attempts());
    assertTrue(yes(c -> dialect().operations().renew(c, id, lease)));
    assertTrue(yes(c -> dialect().operations().release(c, claimed.get(0), "owner-1")));
    OperationRow released = tx(c -> dialect().operations().find(c, id, false));
    assertEquals(OperationState.PENDING, released.state(), "put back as it was");
    assertEquals(0, released.view().attempts());
    assertNull(released.owner());
  }

  // ---- table queue

  @Test
  void aQueuedCopyIsClaimedOnceAckedNackedAndReleased() throws SQLException {
    String dest = unique("d");
    String group = unique("g");
    Instant now = now();
    tx(
        c -> {
          dialect().queue().bind(c, dest, group);
          dialect().queue().bind(c, dest, group); // twice changes nothing
          return null;
        });
    int[] counts =
        tx(
            c ->
                dialect()
                    .queue()
                    .enqueue(
                        c,
                        List.of(
                            event(dest, unique("e"), Map.of()), event(dest, unique("e"), Map.of())),
                        now));
    assertEquals(2, counts.length);
    assertEquals(1, counts[0]);
    assertEquals(2, count(c -> dialect().queue().depth(c, group)));
    QueueClaim claim = new QueueClaim(group, now.plusSeconds(1), 10, now.plusSeconds(60));
    List<Delivery> first = committingItself(c -> claimAndCommit(c, claim));
    assertEquals(2, first.size());
    assertEquals(1, first.get(0).deliveryCount());
    assertEquals(List.of(), tx(c -> dialect().queue().claim(c, claim)), "invisible while claimed");
    long a = (Long) first.get(0).handle();
    long b = (Long) first.get(1).handle();
    tx(
        c -> {
          dialect().queue().ack(c, List.of(a));
          dialect().queue().release(c, List.of(b), now);
          return null;
        });
    List<Delivery> again = tx(c -> dialect().queue().claim(c, claim));
    assertEquals(1, again.size());
    assertEquals(1, again.get(0).deliveryCount(), "a release undoes the claim's count");
    tx(
        c -> {
          dialect().queue().nack(c, List.of(b), now);
          return null;
        });
    assertEquals(2, tx(c -> dialect().queue().claim(c, claim)).get(0).deliveryCount());
    assertEquals(1, count(c -> dialect().queue().purge(c, group)));
  }

  /** {@code claimAndCommit} of an unordered group, with no bounds on its waits. */
  private List<Delivery> claimAndCommit(Connection c, QueueClaim claim) throws SQLException {
    return dialect().queue().claimAndCommit(c, dialect().flavour(), NONE, claim, false);
  }

  /**
   * Runs {@code work}, which commits what it does itself, on a connection with auto-commit off;
   * rolls back whatever it left open, so that only what it committed stays.
   */
  private <T> T committingItself(Work<T> work) throws SQLException {
    try (Connection c = dataSource().getConnection()) {
      c.setAutoCommit(false);
      try {
        return work.run(c);
      } finally {
        c.rollback();
      }
    }
  }

  // ---- trace context

  static final String TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

  /**
   * A well-formed {@code traceparent} and a malformed one (upper case, which no tracer accepts)
   * come back exactly as written from the outbox, the table queue and the dead letters, beside the
   * other headers, once each: a dialect may store the well-formed one in a form of its own.
   */
  @Test
  void aTraceContextComesBackAsWrittenFromEveryTable() throws SQLException {
    for (String tp : List.of(TRACEPARENT, TRACEPARENT.toUpperCase(java.util.Locale.ROOT))) {
      Map<String, String> headers = new java.util.LinkedHashMap<>();
      headers.put("tracestate", "vendor=1");
      headers.put("traceparent", tp);
      headersComeBackFromEveryTable(headers, tp);
    }
  }

  /**
   * Header names and values that an array literal, a URL encoding or a driver's quoting would have
   * to escape — quotes, backslashes, braces, commas, the word NULL, an empty value, non-ASCII text
   * and a long value — come back byte for byte from the outbox, the queue and the dead letters.
   */
  @Test
  void awkwardHeaderValuesComeBackAsWrittenFromEveryTable() throws SQLException {
    Map<String, String> headers = new java.util.LinkedHashMap<>();
    headers.put("quote", "say \"hi\"");
    headers.put("back\\slash", "C:\\dir\\");
    headers.put("array-like", "{\"a,b\",NULL}");
    headers.put("null-word", "NULL");
    headers.put("empty", "");
    headers.put("amp&eq=", "a=1&b=2%20");
    headers.put("unicode", "Grüße 👋");
    headers.put("long", "x".repeat(4_000));
    headersComeBackFromEveryTable(headers, "awkward");
  }

  private void headersComeBackFromEveryTable(Map<String, String> headers, String label)
      throws SQLException {
    String dest = unique("d");
    String group = unique("g");
    Event e = event(dest, unique("e"), headers);
    Instant now = now();
    tx(
        c -> {
          dialect().store().insertOutbox(c, e, 3);
          dialect().queue().bind(c, dest, group);
          dialect().queue().enqueue(c, List.of(e), now);
          return null;
        });
    RawMessage fromOutbox =
        tx(
                c ->
                    dialect()
                        .store()
                        .claimOutbox(c, List.of(3), now.plusSeconds(1), 1000, java.util.Set.of()))
            .stream()
            .map(OutboxRow::message)
            .filter(m -> dest.equals(m.destination()))
            .findFirst()
            .orElseThrow();
    assertEquals(headers, own(fromOutbox.headers()), "outbox: " + label);
    assertEquals(Map.of(), fromOutbox.repeated(), "outbox: " + label);
    QueueClaim claim = new QueueClaim(group, now.plusSeconds(1), 10, now.plusSeconds(60));
    Delivery fromQueue = tx(c -> dialect().queue().claim(c, claim)).get(0);
    assertEquals(headers, fromQueue.event().headers(), "queue: " + label);
    String consumer = unique("c");
    tx(c -> deadLetter(c, consumer, e, 1));
    DeadLetterFilter mine = new DeadLetterFilter(consumer, null, null, null, null, null, null, 10);
    DeadLetter dead =
        tx(c -> dialect().deadLetters().deadLetters(c, DeadLetterQuery.of(mine))).get(0);
    assertEquals(headers, dead.event().headers(), "dead letter: " + label);
  }

  private static Map<String, Object> own(Map<String, ?> headers) {
    Map<String, Object> own = new java.util.LinkedHashMap<>(headers);
    own.keySet().removeIf(name -> name.startsWith(RawMessage.ONCE_PREFIX));
    return own;
  }
}
