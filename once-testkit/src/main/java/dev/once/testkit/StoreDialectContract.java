package dev.once.testkit;

import static dev.once.jdbc.TransactionWaits.NONE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.once.Event;
import dev.once.WorkloadStatus;
import dev.once.jdbc.OutboxRow;
import dev.once.jdbc.RelayClaim;
import dev.once.jdbc.RelayPartitions;
import dev.once.jdbc.TransactionWaits;
import dev.once.spi.RawMessage;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The part of {@link DialectContract} that checks the store: markers, outbox rows, versions,
 * partition locks and claims.
 */
interface StoreDialectContract extends ContractFixture {
  // ---- store

  @Test
  default void aMarkerIsInsertedOnceAndReportedPresentTheSecondTime() throws SQLException {
    String consumer = unique("c");
    assertEquals(
        Set.of("a", "b"),
        Set.copyOf(tx(c -> dialect().store().insertMarkers(c, NONE, consumer, List.of("a", "b")))));
    assertEquals(
        Set.of("c"),
        Set.copyOf(tx(c -> dialect().store().insertMarkers(c, NONE, consumer, List.of("b", "c")))));
    tx(
        c -> {
          dialect().store().deleteMarker(c, consumer, "c");
          return null;
        });
    assertEquals(
        Set.of("c"),
        Set.copyOf(tx(c -> dialect().store().insertMarkers(c, NONE, consumer, List.of("c")))));
  }

  @Test
  default void aMarkerInsertedByATransactionThatCommitsIsNotInsertedByAConcurrentOne()
      throws Exception {
    String consumer = unique("c");
    try (Connection first = dataSource().getConnection()) {
      first.setAutoCommit(false);
      assertEquals(
          Set.of("e"),
          Set.copyOf(dialect().store().insertMarkers(first, NONE, consumer, List.of("e"))));
      CompletableFuture<Set<String>> second =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return Set.copyOf(
                      tx(c -> dialect().store().insertMarkers(c, NONE, consumer, List.of("e"))));
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
  default void anOutboxRowIsWrittenOnceAndClaimedWithItsHeaders() throws SQLException {
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
        tx(
            c ->
                dialect()
                    .store()
                    .claimOutbox(
                        c, List.of(partition), now().plusSeconds(1), 1000, java.util.Set.of()));
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

  static Object own(OutboxRow row, String header) {
    return row.message().headers().get(header);
  }

  @Test
  default void aVersionIsStoredOnlyIfNewer() throws SQLException {
    String id = unique("v");
    assertTrue(yes(c -> dialect().store().applyIfNewer(c, "order", id, 1)));
    assertFalse(yes(c -> dialect().store().applyIfNewer(c, "order", id, 1)), "the same");
    assertFalse(yes(c -> dialect().store().applyIfNewer(c, "order", id, 0)), "an older one");
    assertTrue(yes(c -> dialect().store().applyIfNewer(c, "order", id, 2)), "a newer one");
  }

  @Test
  default void aPartitionOneTransactionHoldsIsSkippedByAnotherUntilItEnds() throws SQLException {
    try (Connection a = dataSource().getConnection();
        Connection b = dataSource().getConnection()) {
      a.setAutoCommit(false);
      b.setAutoCommit(false);
      assertEquals(List.of(1, 2), sorted(dialect().flavour().lockPartitions(a, List.of(1, 2))));
      assertEquals(List.of(3), sorted(dialect().flavour().lockPartitions(b, List.of(2, 3))));
      a.commit();
      b.commit();
      assertEquals(List.of(2), dialect().flavour().lockPartitions(b, List.of(2)));
      b.commit();
    }
  }

  @Test
  default void aRelayBatchBeginsWithTheDuePartitionsLockingTheFreeOnesOfItsShare()
      throws SQLException {
    String dest = unique("d");
    Instant now = now();
    tx(
        c -> {
          for (int partition : List.of(21, 22, 23)) {
            dialect().store().insertOutbox(c, event(dest, unique("r"), Map.of()), partition);
          }
          return null;
        });
    List<Integer> due =
        tx(
            c ->
                dialect()
                    .store()
                    .pendingPartitions(c, now.plusSeconds(1), 100000, java.util.Set.of()));
    TransactionWaits waits = new TransactionWaits(Duration.ofSeconds(10), Duration.ofSeconds(30));
    try (Connection a = dataSource().getConnection();
        Connection b = dataSource().getConnection()) {
      a.setAutoCommit(false);
      b.setAutoCommit(false);
      assertEquals(List.of(22), dialect().flavour().lockPartitions(a, List.of(22)));
      // the batch's first statements: a database may set the transaction's isolation there
      RelayPartitions alone =
          dialect()
              .store()
              .beginRelayBatch(b, waits, now.plusSeconds(1), 100000, 1, java.util.Set.of());
      assertEquals(due.size(), alone.due(), "every due partition counted");
      assertTrue(alone.locked().containsAll(List.of(21, 23)), "alone: every free one locked");
      assertFalse(alone.locked().contains(22), "held by another transaction");
      b.commit();
      RelayPartitions shared =
          dialect()
              .store()
              .beginRelayBatch(b, waits, now.plusSeconds(1), 100000, 2, java.util.Set.of());
      assertEquals(due.size(), shared.due());
      assertTrue(shared.locked().size() <= (due.size() + 1) / 2, "one of two relays: half");
      assertFalse(shared.locked().contains(22));
      b.commit();
      a.commit();
    }
  }

  /**
   * Two relays of a process, one of them mid-batch: the other takes a full share of the partitions
   * nobody holds (so a commit landing beside a running batch is published at once), and nothing
   * beyond its share (a third relay still finds the rest free).
   */
  @Test
  default void aRelayTakesItsShareFromThePartitionsNoOtherRelayHolds() throws SQLException {
    String dest = unique("d");
    Instant due = now().plusSeconds(1);
    tx(
        c -> {
          for (int partition : List.of(31, 32, 33, 34, 35, 36)) {
            dialect().store().insertOutbox(c, event(dest, unique("r"), Map.of()), partition);
          }
          return null;
        });
    TransactionWaits waits = new TransactionWaits(Duration.ofSeconds(10), Duration.ofSeconds(30));
    List<Integer> held = List.of(32, 33, 34);
    try (Connection a = dataSource().getConnection();
        Connection b = dataSource().getConnection();
        Connection third = dataSource().getConnection()) {
      a.setAutoCommit(false);
      b.setAutoCommit(false);
      third.setAutoCommit(false);
      assertEquals(held, sorted(dialect().flavour().lockPartitions(a, held)));
      for (int round = 1; round <= 5; round++) {
        List<Integer> pending =
            tx(c -> dialect().store().pendingPartitions(c, due, 100000, java.util.Set.of()));
        RelayPartitions shared =
            dialect().store().beginRelayBatch(b, waits, due, 100000, 2, java.util.Set.of());
        assertEquals(pending.size(), shared.due(), "every due partition counted");
        int share = (shared.due() + 1) / 2;
        assertEquals(
            Math.min(share, shared.due() - held.size()),
            shared.locked().size(),
            "round " + round + ": a full share of the free partitions, got " + shared.locked());
        assertTrue(
            shared.locked().stream().noneMatch(held::contains),
            "round " + round + ": held by another transaction");
        List<Integer> rest =
            pending.stream()
                .filter(p -> !held.contains(p) && !shared.locked().contains(p))
                .toList();
        assertEquals(
            sorted(rest),
            sorted(dialect().flavour().lockPartitions(third, rest)),
            "round " + round + ": nothing locked beyond the share");
        third.commit();
        b.commit();
      }
      a.commit();
    }
  }

  /**
   * A relay batch begun with its claim holds the rows of the partitions it locked, oldest first, up
   * to its limit, and none of a partition another relay holds.
   */
  @Test
  default void aRelayBatchClaimsTheRowsOfThePartitionsItLockedOnly() throws SQLException {
    String dest = unique("d");
    Instant due = now().plusSeconds(1);
    Map<Integer, List<String>> byPartition = new LinkedHashMap<>();
    tx(
        c -> {
          for (int round = 0; round < 2; round++) {
            for (int partition : List.of(41, 42, 43)) {
              String id = unique("r" + partition);
              dialect().store().insertOutbox(c, event(dest, id, Map.of()), partition);
              byPartition.computeIfAbsent(partition, p -> new ArrayList<>()).add(id);
            }
          }
          return null;
        });
    TransactionWaits waits = new TransactionWaits(Duration.ofSeconds(10), Duration.ofSeconds(30));
    try (Connection a = dataSource().getConnection();
        Connection b = dataSource().getConnection()) {
      a.setAutoCommit(false);
      b.setAutoCommit(false);
      assertEquals(List.of(42), dialect().flavour().lockPartitions(a, List.of(42)));
      RelayClaim claim =
          dialect().store().claimRelayBatch(b, waits, due, 100000, 1, java.util.Set.of());
      assertTrue(claim.partitions().locked().containsAll(List.of(41, 43)), "alone: every free one");
      assertFalse(claim.partitions().locked().contains(42), "held by another transaction");
      List<OutboxRow> ours =
          claim.rows().stream().filter(r -> dest.equals(r.message().destination())).toList();
      assertEquals(
          sortedIds(byPartition.get(41), byPartition.get(43)),
          ours.stream().map(StoreDialectContract::idOf).sorted().toList(),
          "the rows of the locked partitions, none of the held one");
      assertEquals(
          ours.stream().map(OutboxRow::id).sorted().toList(),
          ours.stream().map(OutboxRow::id).toList(),
          "oldest first");
      b.commit();
      RelayClaim one = dialect().store().claimRelayBatch(b, waits, due, 1, 1, java.util.Set.of());
      assertTrue(one.rows().size() <= 1, "at most the limit, got " + one.rows().size());
      b.commit();
      assertEquals(List.of(41, 43), sorted(dialect().flavour().lockPartitions(a, List.of(41, 43))));
      RelayClaim held =
          dialect().store().claimRelayBatch(b, waits, due, 100000, 1, java.util.Set.of());
      assertTrue(
          held.rows().stream().noneMatch(r -> dest.equals(r.message().destination())),
          "every partition of the rows held by another transaction: none of them claimed");
      b.commit();
      a.commit();
    }
  }

  private static List<String> sortedIds(List<String> first, List<String> second) {
    List<String> all = new ArrayList<>(first);
    all.addAll(second);
    return all.stream().sorted().toList();
  }

  @Test
  default void markersInsertedWithTheBoundsOfTheTransactionAreInsertedOnce() throws SQLException {
    String consumer = unique("c");
    TransactionWaits waits = new TransactionWaits(Duration.ofSeconds(10), Duration.ofSeconds(30));
    assertEquals(
        Set.of("a", "b"),
        Set.copyOf(
            tx(c -> dialect().store().insertMarkers(c, waits, consumer, List.of("a", "b")))));
    assertEquals(
        Set.of("c"),
        Set.copyOf(
            tx(c -> dialect().store().insertMarkers(c, waits, consumer, List.of("b", "c")))));
  }

  static List<Integer> sorted(List<Integer> list) {
    return list.stream().sorted().toList();
  }

  @Test
  default void onlyDueRowsAreClaimedOldestFirstNeverParkedOrSentOnes() throws SQLException {
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
        tx(
            c ->
                dialect()
                    .store()
                    .claimOutbox(
                        c, List.of(partition), now.plusSeconds(1), 1000, java.util.Set.of()))) {
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
        tx(
                c ->
                    dialect()
                        .store()
                        .claimOutbox(
                            c, List.of(partition), now.plusSeconds(1), 1000, java.util.Set.of()))
            .stream()
            .filter(r -> dest.equals(r.message().destination()))
            .map(StoreDialectContract::idOf)
            .toList();
    assertEquals(List.of(ids.get(3)), due);
    List<Integer> pending =
        tx(
            c ->
                dialect()
                    .store()
                    .pendingPartitions(c, now.plusSeconds(1), 100000, java.util.Set.of()));
    assertTrue(pending.contains(partition));
    WorkloadStatus status = tx(c -> dialect().status().status(c, now.plusSeconds(1)));
    WorkloadStatus.Backlog backlog =
        status.outbox().stream().filter(b -> b.name().equals(dest)).findFirst().orElseThrow();
    assertEquals(2, backlog.waiting(), "waiting: the one due and the one retried later");
    assertEquals(1, backlog.parked(), "parked");
  }

  static String idOf(OutboxRow r) {
    return String.valueOf(r.message().headers().get(RawMessage.EVENT_ID));
  }
}
