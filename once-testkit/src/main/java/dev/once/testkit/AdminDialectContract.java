package dev.once.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.once.DeadLetter;
import dev.once.DeadLetterAction;
import dev.once.DeadLetterFilter;
import dev.once.DeadLetterGroup;
import dev.once.DeadLetterStatus;
import dev.once.Event;
import dev.once.jdbc.AttemptCount;
import dev.once.jdbc.DeadLetterQuery;
import dev.once.jdbc.FailedAttempt;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The part of {@link DialectContract} that checks attempts, suspects and dead letters. */
interface AdminDialectContract extends ContractFixture {
  // ---- attempts and suspects

  @Test
  default void anAttemptIsCountedUpKeepingTheHigherCountAndTheFirstFailure() throws SQLException {
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

  default Void record(Connection c, String consumer, String id, int n, Instant first, Instant last)
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
  default void aSuspicionKeepsTheHigherLevelUntilCleared() throws SQLException {
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

  default Void raise(Connection c, String consumer, Map<String, Integer> levels)
      throws SQLException {
    dialect().attempts().raiseSuspects(c, consumer, levels, now());
    return null;
  }

  // ---- dead letters

  @Test
  default void aDeadLetterIsWrittenOnceWhileOpenAndReopenedAfterItWasResolved()
      throws SQLException {
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

  @Test
  default void deadLettersAreFilteredPagedByKeyCountedAndGrouped() throws SQLException {
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

  static List<String> eventIds(List<DeadLetter> letters) {
    return letters.stream().map(d -> d.event().id().value()).toList();
  }
}
