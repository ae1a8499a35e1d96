package dev.once.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.once.DeadLetter;
import dev.once.DeadLetterAction;
import dev.once.DeadLetterFilter;
import dev.once.DeadLetterGroup;
import dev.once.DeadLetterStatus;
import dev.once.Event;
import dev.once.EventId;
import dev.once.OperationState;
import dev.once.WorkloadStatus;
import dev.once.spi.AttemptCount;
import dev.once.spi.DeadLetterQuery;
import dev.once.spi.Delivery;
import dev.once.spi.Dialect;
import dev.once.spi.FailedAttempt;
import dev.once.spi.Lease;
import dev.once.spi.OperationInsert;
import dev.once.spi.OperationRow;
import dev.once.spi.OutboxRow;
import dev.once.spi.QueueClaim;
import dev.once.spi.RawMessage;
import dev.once.spi.RetentionDialect.Retained;
import dev.once.spi.Sql;
import dev.once.spi.SqlList;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every dialect must have, as tests on a real database: the flavour's primitives
 * (instants, lists, duplicate keys, missing tables, locks) and each part's statements. Subclass it
 * with a data source whose schema holds Once's tables ({@code Schema.apply}) and the dialect under
 * test; a new database's dialect is ready for the guarantee tests when its subclass passes. Each
 * test works under names of its own, so one schema serves the whole class.
 */
public abstract class DialectContract {

  /** A data source whose current schema holds Once's tables. */
  protected abstract DataSource dataSource();

  /** The dialect under test. */
  protected abstract Dialect dialect();

  private Sql sql() {
    return new Sql(dialect().flavour());
  }

  private static String unique(String prefix) {
    return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
  }

  /** Now, truncated to what every database keeps (microseconds). */
  private static Instant now() {
    return Instant.now().truncatedTo(ChronoUnit.MICROS);
  }

  @FunctionalInterface
  private interface Work<T> {
    T run(Connection c) throws SQLException;
  }

  /** Runs {@code work} in a transaction of its own and commits it. */
  private <T> T tx(Work<T> work) throws SQLException {
    try (Connection c = dataSource().getConnection()) {
      c.setAutoCommit(false);
      try {
        T result = work.run(c);
        c.commit();
        return result;
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      }
    }
  }

  /** {@link #tx} of a yes-or-no statement. */
  private boolean yes(Work<Boolean> work) throws SQLException {
    return tx(work);
  }

  /** {@link #tx} of a statement that counts. */
  private long count(Work<? extends Number> work) throws SQLException {
    return tx(work).longValue();
  }

  private static Event event(String destination, String id, Map<String, String> headers) {
    return new Event(
        new EventId(id),
        destination,
        "key-" + id,
        "Type",
        ("{\"id\":\"" + id + "\"}").getBytes(StandardCharsets.UTF_8),
        headers);
  }

  // ---- the flavour's primitives

  @Test
  void anInstantComesBackAsItWasBoundToTheMicrosecond() throws SQLException {
    Instant at = Instant.parse("2031-05-06T07:08:09.123456Z");
    String dest = unique("d");
    tx(c -> dialect().store().insertOutbox(c, event(dest, unique("e"), Map.of()), 1));
    Instant read =
        tx(
            c -> {
              long id =
                  sql().queryLong(c, "SELECT max(id) FROM once_outbox WHERE destination = ?", dest);
              dialect().store().markPublishFailed(c, id, "refused", at);
              return sql()
                  .first(
                      c,
                      "SELECT next_attempt_at FROM once_outbox WHERE id = ?",
                      rs -> sql().instant(rs, "next_attempt_at"),
                      id);
            });
    assertEquals(at, read);
  }

  @Test
  void aListBindsAsOneConditionAndAnEmptyListMatchesNothing() throws SQLException {
    String dest = unique("d");
    tx(
        c -> {
          for (int i = 0; i < 3; i++) {
            dialect().store().insertOutbox(c, event(dest, unique("e"), Map.of()), i);
          }
          return null;
        });
    SqlList partitions = SqlList.of("integer", List.of(0, 2));
    SqlList none = SqlList.of("integer", List.of());
    String count = "SELECT count(*) FROM once_outbox WHERE destination = ? AND ";
    assertEquals(
        2,
        count(
            c ->
                sql()
                    .queryLong(
                        c, count + sql().in("key_partition", partitions), dest, partitions)));
    assertEquals(
        0, count(c -> sql().queryLong(c, count + sql().in("key_partition", none), dest, none)));
  }

  @Test
  void aDuplicateKeyIsClassifiedAsOneAndSkippedByInsertUnlessDuplicate() throws SQLException {
    String consumer = unique("c");
    String insert = "INSERT INTO once_inbox (consumer_id, event_id) VALUES (?, ?)";
    assertTrue(
        yes(c -> sql().insertUnlessDuplicate(c, insert, "consumer_id, event_id", consumer, "e")));
    assertFalse(
        yes(c -> sql().insertUnlessDuplicate(c, insert, "consumer_id, event_id", consumer, "e")));
    SQLException e =
        assertThrows(SQLException.class, () -> tx(c -> sql().update(c, insert, consumer, "e")));
    assertTrue(dialect().flavour().isDuplicateKey(e), "duplicate key: " + e);
    assertFalse(dialect().isTransient(e), "a duplicate key is not transient");
  }

  @Test
  void aMissingTableIsClassifiedAsOneAndNotAsTransient() {
    SQLException e =
        assertThrows(
            SQLException.class,
            () -> tx(c -> sql().queryLong(c, "SELECT count(*) FROM once_no_such_table")));
    assertTrue(dialect().isMissingTable(e), "missing table: " + e);
    assertFalse(dialect().isTransient(e));
    assertFalse(dialect().flavour().isDuplicateKey(e));
  }

  @Test
  void theRetentionLockIsHeldByOneSessionAtATime() throws SQLException {
    try (Connection a = dataSource().getConnection();
        Connection b = dataSource().getConnection()) {
      assertTrue(dialect().retention().tryRetentionLock(a));
      try {
        assertFalse(dialect().retention().tryRetentionLock(b), "a second session");
      } finally {
        dialect().retention().retentionUnlock(a);
      }
      assertTrue(dialect().retention().tryRetentionLock(b), "after the first let go");
      dialect().retention().retentionUnlock(b);
    }
  }

  // ---- store

  @Test
  void aMarkerIsInsertedOnceAndReportedPresentTheSecondTime() throws SQLException {
    String consumer = unique("c");
    assertEquals(
        Set.of("a", "b"),
        Set.copyOf(tx(c -> dialect().store().insertMarkers(c, consumer, List.of("a", "b")))));
    assertEquals(
        Set.of("c"),
        Set.copyOf(tx(c -> dialect().store().insertMarkers(c, consumer, List.of("b", "c")))));
    tx(
        c -> {
          dialect().store().deleteMarker(c, consumer, "c");
          return null;
        });
    assertEquals(
        Set.of("c"),
        Set.copyOf(tx(c -> dialect().store().insertMarkers(c, consumer, List.of("c")))));
  }

  @Test
  void aMarkerInsertedByATransactionThatCommitsIsNotInsertedByAConcurrentOne() throws Exception {
    String consumer = unique("c");
    try (Connection first = dataSource().getConnection()) {
      first.setAutoCommit(false);
      assertEquals(
          Set.of("e"), Set.copyOf(dialect().store().insertMarkers(first, consumer, List.of("e"))));
      CompletableFuture<Set<String>> second =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return Set.copyOf(
                      tx(c -> dialect().store().insertMarkers(c, consumer, List.of("e"))));
                } catch (SQLException e) {
                  throw new IllegalStateException(e);
                }
              });
      Thread.sleep(200); // the second insert now waits for the first transaction
      first.commit();
      assertEquals(Set.of(), second.get(30, TimeUnit.SECONDS));
    }
  }

  @Test
  void anOutboxRowIsWrittenOnceAndClaimedWithItsHeaders() throws SQLException {
    String dest = unique("d");
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("trace", "a=b&c d");
    headers.put("empty", "");
    headers.put("unicode", "\u00e9\u6f22");
    Event e = event(dest, unique("e"), headers);
    int partition = 7;
    assertTrue(yes(c -> dialect().store().insertOutbox(c, e, partition)));
    assertFalse(yes(c -> dialect().store().insertOutbox(c, e, partition)), "the same event id");
    List<OutboxRow> rows =
        tx(c -> dialect().store().claimOutbox(c, List.of(partition), now().plusSeconds(1), 1000));
    OutboxRow row =
        rows.stream().filter(r -> dest.equals(r.message().destination())).findFirst().orElseThrow();
    Map<String, Object> own = new LinkedHashMap<>(row.message().headers());
    own.keySet()
        .removeIf(name -> name.startsWith(RawMessage.ONCE_PREFIX)); // the id and key columns
    assertEquals(headers, own);
    assertEquals(e.id().value(), own(row, RawMessage.EVENT_ID));
    assertEquals(e.key(), own(row, RawMessage.KEY));
    assertEquals(Map.of(), row.message().repeated());
    assertEquals(0, row.attempts());
    assertEquals(e.type(), row.message().type());
  }

  private static Object own(OutboxRow row, String header) {
    return row.message().headers().get(header);
  }

  @Test
  void aVersionIsStoredOnlyIfNewer() throws SQLException {
    String id = unique("v");
    assertTrue(yes(c -> dialect().store().applyIfNewer(c, "order", id, 1)));
    assertFalse(yes(c -> dialect().store().applyIfNewer(c, "order", id, 1)), "the same");
    assertFalse(yes(c -> dialect().store().applyIfNewer(c, "order", id, 0)), "an older one");
    assertTrue(yes(c -> dialect().store().applyIfNewer(c, "order", id, 2)), "a newer one");
  }

  @Test
  void aPartitionOneTransactionHoldsIsSkippedByAnotherUntilItEnds() throws SQLException {
    try (Connection a = dataSource().getConnection();
        Connection b = dataSource().getConnection()) {
      a.setAutoCommit(false);
      b.setAutoCommit(false);
      assertEquals(List.of(1, 2), sorted(dialect().store().lockPartitions(a, List.of(1, 2))));
      assertEquals(List.of(3), sorted(dialect().store().lockPartitions(b, List.of(2, 3))));
      a.commit();
      b.commit();
      assertEquals(List.of(2), dialect().store().lockPartitions(b, List.of(2)));
      b.commit();
    }
  }

  private static List<Integer> sorted(List<Integer> list) {
    return list.stream().sorted().toList();
  }

  @Test
  void onlyDueRowsAreClaimedOldestFirstNeverParkedOrSentOnes() throws SQLException {
    String dest = unique("d");
    int partition = 11;
    Instant now = now();
    List<String> ids = List.of(unique("e1"), unique("e2"), unique("e3"), unique("e4"));
    tx(
        c -> {
          for (String id : ids) {
            dialect().store().insertOutbox(c, event(dest, id, Map.of()), partition);
          }
          return null;
        });
    Map<String, Long> rowIds = new LinkedHashMap<>();
    for (OutboxRow r :
        tx(c -> dialect().store().claimOutbox(c, List.of(partition), now.plusSeconds(1), 1000))) {
      if (dest.equals(r.message().destination())) {
        rowIds.put(idOf(r), r.id());
      }
    }
    assertEquals(ids, List.copyOf(rowIds.keySet()), "oldest first");
    tx(
        c -> {
          dialect().store().parkOutbox(c, rowIds.get(ids.get(0)), "kept refusing");
          dialect()
              .store()
              .markPublishFailed(c, rowIds.get(ids.get(1)), "later", now.plusSeconds(3600));
          dialect().store().markSent(c, List.of(rowIds.get(ids.get(2))), now);
          return null;
        });
    List<String> due =
        tx(c -> dialect().store().claimOutbox(c, List.of(partition), now.plusSeconds(1), 1000))
            .stream()
            .filter(r -> dest.equals(r.message().destination()))
            .map(DialectContract::idOf)
            .toList();
    assertEquals(List.of(ids.get(3)), due);
    List<Integer> pending =
        tx(c -> dialect().store().pendingPartitions(c, now.plusSeconds(1), 100000));
    assertTrue(pending.contains(partition));
    WorkloadStatus status = tx(c -> dialect().status().status(c, now.plusSeconds(1)));
    WorkloadStatus.Backlog backlog =
        status.outbox().stream().filter(b -> b.name().equals(dest)).findFirst().orElseThrow();
    assertEquals(2, backlog.waiting(), "waiting: the one due and the one retried later");
    assertEquals(1, backlog.parked(), "parked");
  }

  private static String idOf(OutboxRow r) {
    return String.valueOf(r.message().headers().get(RawMessage.EVENT_ID));
  }

  // ---- attempts and suspects

  @Test
  void anAttemptIsCountedUpKeepingTheHigherCountAndTheFirstFailure() throws SQLException {
    String consumer = unique("c");
    Instant first = now().minusSeconds(60);
    Instant later = now();
    tx(c -> record(c, consumer, "e", 1, first, first));
    tx(c -> record(c, consumer, "e", 1, first, later)); // a second failure: stored + 1
    AttemptCount two =
        tx(c -> dialect().attempts().loadAttempts(c, consumer, List.of("e", "x"))).get("e");
    assertEquals(2, two.attempts());
    assertEquals(first, two.firstFailedAt());
    tx(c -> record(c, consumer, "e", 7, later, later)); // a known higher count wins
    Map<String, AttemptCount> known =
        tx(c -> dialect().attempts().loadAttempts(c, consumer, List.of("e", "x")));
    assertEquals(7, known.get("e").attempts());
    assertEquals(first, known.get("e").firstFailedAt());
    assertFalse(known.containsKey("x"));
    tx(
        c -> {
          dialect().attempts().deleteAttempts(c, consumer, "e");
          return null;
        });
    assertEquals(Map.of(), tx(c -> dialect().attempts().loadAttempts(c, consumer, List.of("e"))));
  }

  private Void record(Connection c, String consumer, String id, int n, Instant first, Instant last)
      throws SQLException {
    dialect()
        .attempts()
        .recordAttempts(
            c,
            List.of(
                new FailedAttempt(
                    consumer,
                    id,
                    n,
                    first,
                    last,
                    "java.lang.IllegalStateException",
                    "fp",
                    "boom",
                    false)));
    return null;
  }

  @Test
  void aSuspicionKeepsTheHigherLevelUntilCleared() throws SQLException {
    String consumer = unique("c");
    tx(c -> raise(c, consumer, Map.of("a", 2, "b", 1)));
    tx(c -> raise(c, consumer, Map.of("a", 1, "b", 3)));
    assertEquals(
        Map.of("a", 2, "b", 3),
        tx(c -> dialect().attempts().loadSuspects(c, consumer, List.of("a", "b", "c"))));
    tx(
        c -> {
          dialect().attempts().clearSuspects(c, consumer, List.of("a"));
          return null;
        });
    assertEquals(
        Map.of("b", 3), tx(c -> dialect().attempts().loadSuspects(c, consumer, List.of("a", "b"))));
  }

  private Void raise(Connection c, String consumer, Map<String, Integer> levels)
      throws SQLException {
    dialect().attempts().raiseSuspects(c, consumer, levels, now());
    return null;
  }

  // ---- dead letters

  @Test
  void aDeadLetterIsWrittenOnceWhileOpenAndReopenedAfterItWasResolved() throws SQLException {
    String consumer = unique("c");
    Event e = event("orders", unique("e"), Map.of("trace", "t1"));
    assertTrue(yes(c -> deadLetter(c, consumer, e, 3)));
    assertFalse(yes(c -> deadLetter(c, consumer, e, 4)), "one is open");
    DeadLetterFilter mine = new DeadLetterFilter(consumer, null, null, null, null, null, null, 100);
    DeadLetter open =
        tx(c -> dialect().deadLetters().deadLetters(c, DeadLetterQuery.of(mine))).get(0);
    assertEquals(3, open.attempts());
    assertEquals(e, open.event());
    assertEquals(DeadLetterStatus.DEAD, open.status());
    Instant at = now();
    assertTrue(yes(c -> dialect().deadLetters().resolveDeadLetter(c, open.id(), "replayed", at)));
    assertFalse(
        yes(c -> dialect().deadLetters().resolveDeadLetter(c, open.id(), "discarded", at)),
        "resolved once");
    tx(
        c -> {
          dialect()
              .deadLetters()
              .insertDeadLetterAction(
                  c, consumer, e.id().value(), new DeadLetterAction("replay", "ops", "fixed", at));
          return null;
        });
    assertEquals(
        List.of(new DeadLetterAction("replay", "ops", "fixed", at)),
        tx(c -> dialect().deadLetters().deadLetterActions(c, consumer, e.id().value())));
    assertTrue(yes(c -> deadLetter(c, consumer, e, 5)), "reopened");
    DeadLetter reopened =
        tx(c -> dialect().deadLetters().deadLetters(c, DeadLetterQuery.of(mine))).get(0);
    assertEquals(open.id(), reopened.id());
    assertEquals(5, reopened.attempts());
    assertEquals(DeadLetterStatus.DEAD, reopened.status());
    assertNull(reopened.resolvedAt());
  }

  private boolean deadLetter(Connection c, String consumer, Event e, int attempts)
      throws SQLException {
    Instant now = now();
    return dialect()
        .deadLetters()
        .insertDeadLetter(
            c,
            e,
            new FailedAttempt(
                consumer,
                e.id().value(),
                attempts,
                now,
                now,
                "java.lang.Error",
                "fp-" + consumer,
                "m",
                false),
            now);
  }

  @Test
  void deadLettersAreFilteredPagedByKeyCountedAndGrouped() throws SQLException {
    String consumer = unique("c");
    for (int i = 0; i < 5; i++) {
      Event e = event("orders", consumer + "-e" + i, Map.of("n", "" + i));
      tx(c -> deadLetter(c, consumer, e, 1));
    }
    DeadLetterFilter mine = new DeadLetterFilter(consumer, null, null, null, null, null, "dead", 2);
    List<DeadLetter> oldest =
        tx(c -> dialect().deadLetters().deadLetters(c, DeadLetterQuery.of(mine)));
    assertEquals(List.of(consumer + "-e0", consumer + "-e1"), eventIds(oldest));
    List<DeadLetter> newest =
        tx(
            c ->
                dialect()
                    .deadLetters()
                    .deadLetters(c, DeadLetterQuery.pageBefore(mine, Long.MAX_VALUE)));
    assertEquals(List.of(consumer + "-e4", consumer + "-e3"), eventIds(newest));
    List<DeadLetter> next =
        tx(
            c ->
                dialect()
                    .deadLetters()
                    .deadLetters(c, DeadLetterQuery.pageBefore(mine, newest.get(1).id())));
    assertEquals(List.of(consumer + "-e2", consumer + "-e1"), eventIds(next));
    List<DeadLetter> summaries =
        tx(
            c ->
                dialect()
                    .deadLetters()
                    .deadLetters(c, DeadLetterQuery.summariesAfter(mine, oldest.get(1).id())));
    assertEquals(List.of(consumer + "-e2", consumer + "-e3"), eventIds(summaries));
    assertEquals(0, summaries.get(0).event().payload().length, "a summary has no payload");
    assertEquals(Map.of(), summaries.get(0).event().headers(), "nor headers");
    assertEquals(5, count(c -> dialect().deadLetters().countDeadLetters(c, mine)));
    DeadLetterFilter two = mine.ids(List.of(oldest.get(0).id(), newest.get(0).id())).limit(10);
    assertEquals(2, count(c -> dialect().deadLetters().countDeadLetters(c, two)));
    assertEquals(0, count(c -> dialect().deadLetters().countDeadLetters(c, mine.ids(List.of()))));
    List<DeadLetterGroup> groups =
        tx(c -> dialect().deadLetters().deadLetterGroups(c, "dead", 1000));
    assertTrue(groups.stream().anyMatch(g -> g.consumerId().equals(consumer) && g.count() == 5));
  }

  private static List<String> eventIds(List<DeadLetter> letters) {
    return letters.stream().map(d -> d.event().id().value()).toList();
  }

  // ---- retention

  @Test
  void retentionDeletesAtMostItsLimitOfOldRowsAndNoNewOnes() throws SQLException {
    String consumer = unique("c");
    tx(c -> dialect().store().insertMarkers(c, consumer, List.of("a", "b", "c")));
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
        Set.copyOf(tx(c -> dialect().store().insertMarkers(c, consumer, List.of("a", "b", "c")))),
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
    List<Delivery> first = tx(c -> dialect().queue().claim(c, claim));
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
}
