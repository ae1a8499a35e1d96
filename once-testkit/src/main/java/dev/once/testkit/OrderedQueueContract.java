package dev.once.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.once.DeadLetter;
import dev.once.DeadLetterFilter;
import dev.once.Event;
import dev.once.EventId;
import dev.once.jdbc.DeadLetterQuery;
import dev.once.jdbc.QueueClaim;
import dev.once.jdbc.QueueDialect;
import dev.once.spi.Delivery;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The part of {@link DialectContract} that checks the table queue's ordered claim and parked keys
 * ({@code once_parked_key}), through the statements the table queue runs for an ordered consumer:
 * {@link QueueDialect#claimInKeyOrder}, {@link QueueDialect#ackInKeyOrder}, and the releases a
 * replay ({@link QueueDialect#enqueueFor}) and a discard ({@code releaseParkedKey}) make; and the
 * key lane of an ordered group on a broker that orders by key ({@link QueueDialect#keepsLanes}).
 */
interface OrderedQueueContract extends ContractFixture {

  /**
   * Two keys of an ordered group, three rows each, enqueued interleaved. Each key's head is claimed
   * first and alone; its later rows wait while it is in flight and after it is nacked; when its
   * dead letter's ack parks the key they wait for the park. A replay puts key r's head back in its
   * old place and releases the key; a discard releases key d. Then each key's remaining rows are
   * claimed one at a time, in enqueue order, and nothing parks again.
   */
  @Test
  default void aKeysLaterRowsWaitForItsHeadAndItsParkAndFollowInOrderWhenItIsReleased()
      throws SQLException {
    QueueDialect queue = dialect().queue();
    assumeTrue(queue.ordersByKey(), dialect().name() + " has no ordered table-queue claim");
    String dest = unique("d");
    String group = unique("g");
    Instant now = now();
    List<Event> r = keyed(dest, "r", 3);
    List<Event> d = keyed(dest, "d", 3);
    tx(
        c -> {
          queue.bind(c, dest, group);
          queue.markInKeyOrder(c, dest, group);
          return queue.enqueue(
              c, List.of(r.get(0), d.get(0), r.get(1), d.get(1), r.get(2), d.get(2)), now);
        });
    QueueClaim claim = new QueueClaim(group, now.plusSeconds(1), 10, now.plusSeconds(60));

    List<Delivery> heads = claimed(claim);
    assertEquals(ids(r.get(0), d.get(0)), ids(heads), "each key's head, and only it");
    assertEquals(List.of(), claimed(claim), "heads in flight");
    List<Long> headIds = heads.stream().map(h -> (Long) h.handle()).toList();
    tx(
        c -> {
          queue.nack(c, headIds, now);
          return null;
        });
    List<Delivery> again = claimed(claim);
    assertEquals(ids(r.get(0), d.get(0)), ids(again), "a nacked head stays its key's first");

    tx(
        c -> {
          deadLetter(c, group, r.get(0), 3);
          deadLetter(c, group, d.get(0), 3);
          queue.ackInKeyOrder(c, headIds, now);
          return null;
        });
    assertEquals(List.of(), claimed(claim), "both keys parked");
    assertEquals(4, count(c -> queue.depth(c, group)), "their later rows kept");

    tx(
        c -> {
          resolve(c, group, r.get(0), "replayed");
          return queue.enqueueFor(c, r.get(0), group, now);
        });
    tx(
        c -> {
          resolve(c, group, d.get(0), "discarded");
          assertTrue(dialect().deadLetters().releaseParkedKey(c, group, d.get(0).id().value()));
          return null;
        });
    List<Delivery> replayed = claimed(claim);
    assertEquals(ids(r.get(0), d.get(1)), ids(replayed), "r's head replayed first, d's next row");
    assertEquals(headIds.get(0), replayed.get(0).handle(), "the replayed head in its old place");
    for (int step = 1; step <= 3; step++) {
      List<Long> taken = replayed.stream().map(h -> (Long) h.handle()).toList();
      tx(
          c -> {
            queue.ackInKeyOrder(c, taken, now);
            return null;
          });
      replayed = claimed(claim);
      List<String> next =
          switch (step) {
            case 1 -> ids(r.get(1), d.get(2));
            case 2 -> ids(r.get(2));
            default -> List.of();
          };
      assertEquals(next, ids(replayed), "one row of each key at a time, in order: step " + step);
    }
    assertEquals(0, count(c -> queue.depth(c, group)), "nothing parked again");
  }

  /**
   * A parked key's rows, those behind its head and one enqueued while it is parked, wait however
   * the claim finds them (a dialect may take them out of the claim's range while the key is
   * parked), the other key's rows behind them are claimed, and after a discard of the head they
   * come back in order, the one enqueued while parked last; a row of the key enqueued after the
   * release runs too, after them.
   */
  @Test
  default void rowsEnqueuedWhileAKeyIsParkedWaitAndFollowInOrderWhenItIsReleased()
      throws SQLException {
    QueueDialect queue = dialect().queue();
    assumeTrue(queue.ordersByKey(), dialect().name() + " has no ordered table-queue claim");
    String dest = unique("d");
    String group = unique("g");
    Instant now = now();
    List<Event> k = keyed(dest, "k", 4);
    List<Event> o = keyed(dest, "o", 3);
    tx(
        c -> {
          queue.bind(c, dest, group);
          queue.markInKeyOrder(c, dest, group);
          return queue.enqueue(c, List.of(k.get(0), k.get(1), o.get(0)), now);
        });
    QueueClaim one = new QueueClaim(group, now.plusSeconds(1), 1, now.plusSeconds(60));
    QueueClaim claim = new QueueClaim(group, now.plusSeconds(1), 10, now.plusSeconds(60));
    List<Delivery> heads = claimed(claim);
    assertEquals(ids(k.get(0), o.get(0)), ids(heads), "each key's head");
    tx(
        c -> {
          deadLetter(c, group, k.get(0), 3);
          queue.ackInKeyOrder(c, heads.stream().map(h -> (Long) h.handle()).toList(), now);
          return queue.enqueue(c, List.of(k.get(2), o.get(1)), now);
        });
    List<Delivery> other = claimed(one);
    assertEquals(ids(o.get(1)), ids(other), "the other key, behind the parked key's rows");
    acked(other);
    assertEquals(2, count(c -> queue.depth(c, group)), "the parked key's rows kept");

    tx(
        c -> {
          resolve(c, group, k.get(0), "discarded");
          assertTrue(dialect().deadLetters().releaseParkedKey(c, group, k.get(0).id().value()));
          return queue.enqueue(c, List.of(k.get(3), o.get(2)), now);
        });
    List<String> taken = new java.util.ArrayList<>();
    for (List<Delivery> next = claimed(claim); !next.isEmpty(); next = claimed(claim)) {
      taken.addAll(ids(next));
      acked(next);
    }
    assertEquals(
        ids(k.get(1), o.get(2), k.get(2), k.get(3)),
        taken,
        "the parked key's rows after its release, in order, one at a time");
    assertEquals(0, count(c -> queue.depth(c, group)), "none left behind");
  }

  /**
   * A key lane of an ordered group on a broker that orders by key (Kafka): a dead-lettered record
   * that has no row parks its key with a place reserved ({@link QueueDialect#parkBrokerHead}, a
   * second park changes nothing and nothing else is left in the queue); {@link
   * QueueDialect#laneKeys} names the parked key with its head and a key with lane rows with "";
   * rows put in the lane after the park wait; a replay puts the head back in its reserved place,
   * before them, and the key's rows then run one at a time in order.
   */
  @Test
  default void aBrokersParkedHeadKeepsItsPlaceBeforeTheRowsDivertedAfterIt() throws SQLException {
    QueueDialect queue = dialect().queue();
    assumeTrue(queue.keepsLanes(), dialect().name() + " keeps no key lanes");
    String dest = unique("d");
    String group = unique("g");
    Instant now = now();
    List<Event> k = keyed(dest, "k", 3);
    List<Event> o = keyed(dest, "o", 1);
    tx(
        c -> {
          queue.bind(c, dest, group);
          queue.markInKeyOrder(c, dest, group);
          deadLetter(c, group, k.get(0), 3);
          queue.parkBrokerHead(c, group, k.get(0), now);
          queue.parkBrokerHead(c, group, k.get(0), now);
          return null;
        });
    assertEquals(0, count(c -> queue.depth(c, group)), "no row left by the park");
    assertEquals(
        Map.of("k", k.get(0).id().value()),
        tx(c -> queue.laneKeys(c, dest, group, List.of("k", "o"))),
        "the parked key, with its head");
    tx(c -> queue.enqueueInLane(c, List.of(k.get(1), k.get(2), o.get(0)), group, now));
    assertEquals(
        Map.of("k", k.get(0).id().value(), "o", ""),
        tx(c -> queue.laneKeys(c, dest, group, List.of("k", "o", "x"))),
        "a parked key with its head, a key with lane rows with nothing");
    QueueClaim claim = new QueueClaim(group, now.plusSeconds(1), 10, now.plusSeconds(60));
    List<Delivery> other = claimed(claim);
    assertEquals(ids(o.get(0)), ids(other), "the parked key's lane rows wait");
    acked(other);

    tx(
        c -> {
          resolve(c, group, k.get(0), "replayed");
          return queue.enqueueFor(c, k.get(0), group, now);
        });
    List<String> taken = new java.util.ArrayList<>();
    for (List<Delivery> next = claimed(claim); !next.isEmpty(); next = claimed(claim)) {
      assertEquals(1, next.size(), "one row of the key at a time");
      taken.addAll(ids(next));
      acked(next);
    }
    assertEquals(ids(k.get(0), k.get(1), k.get(2)), taken, "the replayed head first, in order");
    assertEquals(Map.of(), tx(c -> queue.laneKeys(c, dest, group, List.of("k", "o"))));
  }

  /**
   * A batch put into the lane of a broker's ordered group ({@link QueueDialect#enqueueInLane}, one
   * statement for the batch on PostgreSQL) comes back from the ordered claim in list order (ids
   * ascending) and each event whole: its key (none too), payload and headers — a trace context,
   * values an array literal would have to escape, none. A group not bound in key order gets no row.
   */
  @Test
  default void aLaneBatchComesBackInOrderAndEachEventWhole() throws SQLException {
    QueueDialect queue = dialect().queue();
    assumeTrue(queue.ordersByKey(), dialect().name() + " has no ordered table-queue claim");
    String dest = unique("d");
    String group = unique("g");
    Instant now = now();
    Map<String, String> traced = new java.util.LinkedHashMap<>();
    traced.put("tracestate", "vendor=1");
    traced.put("traceparent", DialectContract.TRACEPARENT);
    Map<String, String> awkward = new java.util.LinkedHashMap<>();
    awkward.put("quote", "say \"hi\"");
    awkward.put("back\\slash", "C:\\dir\\");
    awkward.put("array-like", "{\"a,b\",NULL}");
    awkward.put("null-word", "NULL");
    awkward.put("empty", "");
    List<Event> batch =
        List.of(
            laneEvent(dest, "k1", traced, 0),
            laneEvent(dest, null, Map.of(), 1),
            laneEvent(dest, "k2", awkward, 2),
            laneEvent(dest, "k3", Map.of("x", "1"), 3));
    int[] written =
        tx(
            c -> {
              queue.bind(c, dest, group);
              queue.markInKeyOrder(c, dest, group);
              return queue.enqueueInLane(c, batch, group, now);
            });
    assertEquals(List.of(1, 1, 1, 1), java.util.Arrays.stream(written).boxed().toList());
    List<Delivery> got =
        claimed(new QueueClaim(group, now.plusSeconds(1), 10, now.plusSeconds(60)));
    assertEquals(ids(batch.toArray(new Event[0])), ids(got), "the batch's rows in list order");
    for (int i = 0; i < batch.size(); i++) {
      Event sent = batch.get(i);
      Event back = got.get(i).event();
      assertEquals(sent.key(), back.key(), "key of event " + i);
      assertEquals(sent.type(), back.type(), "type of event " + i);
      assertEquals(sent.headers(), back.headers(), "headers of event " + i);
      assertEquals(
          new String(sent.payload(), StandardCharsets.UTF_8),
          new String(back.payload(), StandardCharsets.UTF_8),
          "payload of event " + i);
    }
    int[] unbound =
        tx(c -> queue.enqueueInLane(c, List.of(laneEvent(dest, "k4", Map.of(), 4)), "none", now));
    assertEquals(List.of(0), java.util.Arrays.stream(unbound).boxed().toList(), "no lane");
  }

  private Event laneEvent(String destination, String key, Map<String, String> headers, int i) {
    return new Event(
        new EventId(unique("lane") + "-" + i),
        destination,
        key,
        "Step",
        ("{\"step\":" + i + "}").getBytes(StandardCharsets.UTF_8),
        headers);
  }

  /** Acknowledges {@code deliveries} with the ordered acknowledgement. */
  private void acked(List<Delivery> deliveries) throws SQLException {
    List<Long> ids = deliveries.stream().map(h -> (Long) h.handle()).toList();
    tx(
        c -> {
          queue().ackInKeyOrder(c, ids, now());
          return null;
        });
  }

  private QueueDialect queue() {
    return dialect().queue();
  }

  /** An ordered claim's deliveries in queue order (a statement may return them in any order). */
  private List<Delivery> claimed(QueueClaim claim) throws SQLException {
    List<Delivery> claimed =
        new java.util.ArrayList<>(tx(c -> dialect().queue().claimInKeyOrder(c, claim)));
    claimed.sort(java.util.Comparator.comparing(x -> (Long) x.handle()));
    return claimed;
  }

  /** Moves the open dead letter of {@code e} to {@code status}, as a replay or discard does. */
  private boolean resolve(java.sql.Connection c, String group, Event e, String status)
      throws SQLException {
    DeadLetterFilter of =
        new DeadLetterFilter(group, e.id().value(), null, null, null, null, null, 1);
    DeadLetter open = dialect().deadLetters().deadLetters(c, DeadLetterQuery.of(of)).get(0);
    return dialect().deadLetters().resolveDeadLetter(c, open.id(), status, now());
  }

  /** {@code n} events of one key, in the order they are to be applied. */
  private List<Event> keyed(String destination, String key, int n) {
    String prefix = unique(key);
    return java.util.stream.IntStream.range(0, n)
        .mapToObj(
            i ->
                new Event(
                    new EventId(prefix + "-" + i),
                    destination,
                    key,
                    "Step",
                    ("{\"step\":" + i + "}").getBytes(StandardCharsets.UTF_8),
                    Map.of()))
        .toList();
  }

  private static List<String> ids(Event... events) {
    return java.util.Arrays.stream(events).map(e -> e.id().value()).toList();
  }

  private static List<String> ids(List<Delivery> deliveries) {
    return deliveries.stream().map(x -> x.event().id().value()).toList();
  }
}
