package dev.once.relayorder;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.DeadLetter;
import dev.once.DeadLetterFilter;
import dev.once.Event;
import dev.once.EventId;
import dev.once.Once;
import dev.once.OnceListener;
import dev.once.Relay;
import dev.once.RetryPolicy;
import dev.once.WorkloadStatus;
import dev.once.jdbc.Dialect;
import dev.once.jdbc.JdbcDialect;
import dev.once.jdbc.StoreDialect;
import dev.once.spi.Transport;
import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.TestDatabase;
import dev.once.testkit.SettableClock;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The relay of a key-ordered destination (one an ordered consumer receives, marked in {@code
 * once_ordered_destination}): a key's row in publish backoff or parked holds that key's later rows
 * back, and only that key's; they go in order once it is sent, replayed or discarded. The order the
 * relay published in is read from the table queue it publishes to: a key's rows must be there in
 * step order ({@link #overtakings}). The broken twin, a store that ignores the hold, is caught.
 * Runs on each database (a subclass each); the mark is written as another process's ordered
 * consumer writes it, so the relay learns it from the table.
 */
abstract class RelayKeyOrderTest {
  private static final Duration BACKOFF = Duration.ofHours(1);

  private TestDatabase db;
  private TableQueueTransport queue;
  private RefusingTransport broker;
  private Once once;
  private final SettableClock clock = SettableClock.stoppedNow();

  /** A new, empty database of the kind under test. */
  abstract TestDatabase database();

  /** This database's store, with the relay's key hold taken out: the broken twin. */
  abstract StoreDialect storeWithoutHold();

  @AfterEach
  void close() {
    if (once != null) {
      once.close();
    }
    if (queue != null) {
      queue.close();
    }
    if (db != null) {
      db.close();
    }
  }

  @Test
  void aKeysRowInBackoffHoldsBackOnlyThatKeysLaterRowsAndAfterItTheyGoInOrder() {
    start(false, 3, null);
    markOrdered();
    broker.refused.add("step:k0:1");
    publish(3, 3);
    Relay relay = once.newRelay();
    runUntilIdle(relay);

    assertThat(queued("k0")).as("k0 waits behind its step 1 in backoff").isEmpty();
    assertThat(queued("k1")).containsExactly("step:k1:1", "step:k1:2", "step:k1:3");
    assertThat(queued("k2")).containsExactly("step:k2:1", "step:k2:2", "step:k2:3");
    assertThat(db.count("SELECT attempts FROM once_outbox WHERE event_id = 'step:k0:1'"))
        .isEqualTo(1);
    assertThat(db.count("SELECT count(*) FROM once_outbox WHERE sent_at IS NULL")).isEqualTo(3);

    broker.refused.clear();
    clock.advance(BACKOFF.multipliedBy(2));
    runUntilIdle(relay);
    assertThat(queued("k0")).containsExactly("step:k0:1", "step:k0:2", "step:k0:3");
    assertThat(overtakings()).isZero();
  }

  @Test
  void theBrokenTwinThatIgnoresTheHoldLetsALaterRowOvertakeAndIsCaught() {
    start(false, 3, storeWithoutHold());
    markOrdered();
    broker.refused.add("step:k0:1");
    publish(3, 3);
    Relay relay = once.newRelay();
    runUntilIdle(relay);
    broker.refused.clear();
    clock.advance(BACKOFF.multipliedBy(2));
    runUntilIdle(relay);

    assertThat(queued("k0")).containsExactly("step:k0:2", "step:k0:3", "step:k0:1");
    assertThat(overtakings()).as("caught").isPositive();
  }

  @Test
  void anUnorderedDestinationKeepsTodaysBehaviourALaterRowGoesAhead() {
    start(false, 3, null);
    broker.refused.add("step:k0:1");
    publish(2, 3);
    runUntilIdle(once.newRelay());

    assertThat(queued("k0")).containsExactly("step:k0:2", "step:k0:3");
  }

  @Test
  void aParkedHeadHoldsItsKeyItsLaterRowsShowAsWaitingAndAReplayReleasesThemInOrder() {
    start(false, 1, null);
    markOrdered();
    broker.refused.add("step:k0:1");
    publish(3, 3);
    Relay relay = once.newRelay();
    runUntilIdle(relay);
    clock.advance(BACKOFF.multipliedBy(2));
    runUntilIdle(relay);

    assertThat(queued("k0")).as("k0 parked at the relay: its later rows wait").isEmpty();
    assertThat(queued("k1")).hasSize(3);
    DeadLetter head = once.deadLetters().list(DeadLetterFilter.open()).get(0);
    assertThat(head.consumerId()).isEqualTo(DeadLetter.RELAY);
    assertThat(head.event().id().value()).isEqualTo("step:k0:1");
    WorkloadStatus.Backlog outbox = once.status().outbox().get(0);
    assertThat(outbox.name()).isEqualTo("orders");
    assertThat(outbox.parked()).as("the head").isEqualTo(1);
    assertThat(outbox.waiting()).as("k0's later rows, held").isEqualTo(2);

    broker.refused.clear();
    assertThat(once.deadLetters().replay(DeadLetterFilter.open(), "test", "fixed")).hasSize(1);
    runUntilIdle(relay);
    assertThat(queued("k0")).containsExactly("step:k0:1", "step:k0:2", "step:k0:3");
    assertThat(overtakings()).isZero();
  }

  @Test
  void aDiscardOfAParkedHeadReleasesTheKeysLaterRowsInOrder() {
    start(false, 1, null);
    markOrdered();
    broker.refused.add("step:k0:1");
    publish(1, 3);
    Relay relay = once.newRelay();
    runUntilIdle(relay);
    assertThat(queued("k0")).isEmpty();

    once.deadLetters().discard(DeadLetterFilter.open(), "test", "obsolete");
    runUntilIdle(relay);
    assertThat(queued("k0")).containsExactly("step:k0:2", "step:k0:3");
  }

  @Test
  void aRelayKilledBetweenPublishAndMarkRepublishesTheKeysHeadBeforeItsLaterRows() {
    AtomicBoolean crashOnce = new AtomicBoolean(true);
    OnceListener killAfterPublish =
        new OnceListener() {
          @Override
          public void published(List<Event> events) {
            if (events.stream().anyMatch(e -> e.id().value().equals("step:k0:1"))
                && crashOnce.getAndSet(false)) {
              throw new Error("simulated crash after publish, before mark-sent");
            }
          }
        };
    start(false, 3, null, killAfterPublish);
    markOrdered();
    publish(3, 3);
    Relay relay = once.newRelay();
    assertThat(crashed(relay)).isTrue();
    runUntilIdle(relay);

    assertThat(queued("k0"))
        .as("published again with its id, and only then its key's later rows")
        .containsExactly("step:k0:1", "step:k0:1", "step:k0:2", "step:k0:3");
    assertThat(overtakings()).isZero();
    assertThat(db.count("SELECT count(*) FROM once_outbox WHERE sent_at IS NULL")).isZero();
  }

  @Test
  void aRelayKilledInsideItsTransactionPublishesNothingTwiceWhenTheQueueIsInIt() {
    AtomicBoolean crashOnce = new AtomicBoolean(true);
    OnceListener killAfterPublish =
        new OnceListener() {
          @Override
          public void published(List<Event> events) {
            if (crashOnce.getAndSet(false)) {
              throw new Error("simulated crash after publish, before mark-sent");
            }
          }
        };
    start(true, 3, null, killAfterPublish);
    markOrdered();
    publish(2, 3);
    Relay relay = once.newRelay();
    assertThat(crashed(relay)).isTrue();
    assertThat(queue()).as("the enqueue rolled back with the batch").isEmpty();
    runUntilIdle(relay);

    assertThat(queued("k0")).containsExactly("step:k0:1", "step:k0:2", "step:k0:3");
    assertThat(queued("k1")).containsExactly("step:k1:1", "step:k1:2", "step:k1:3");
  }

  @Test
  void aMarkWrittenByAnotherProcessIsReadWithinTheRefresh() {
    start(false, 3, null);
    Relay relay = once.newRelay(); // reads the marks: none yet
    markOrdered();
    clock.advance(Duration.ofSeconds(5)); // the relay reads them again
    broker.refused.add("step:k0:1");
    publish(1, 2);
    runUntilIdle(relay);

    assertThat(queued("k0")).as("held: the relay read the mark").isEmpty();
  }

  private void start(boolean inRelayTransaction, int maxAttempts, StoreDialect store) {
    start(inRelayTransaction, maxAttempts, store, new OnceListener() {});
  }

  private void start(
      boolean inRelayTransaction, int maxAttempts, StoreDialect store, OnceListener listener) {
    db = database();
    queue =
        TableQueueTransport.builder(db.dataSource())
            .publishInRelayTransaction(inRelayTransaction)
            .build();
    broker = new RefusingTransport(queue);
    Transport transport = inRelayTransaction ? queue : broker;
    Dialect dialect = store == null ? db.dialect() : ((JdbcDialect) db.dialect()).withStore(store);
    once =
        Once.builder()
            .dataSource(db.dataSource())
            .dialect(dialect)
            .transport(transport)
            .destinations("orders")
            .clock(clock)
            .listener(listener)
            .relayRetry(
                RetryPolicy.builder().maxAttempts(maxAttempts).backoff(BACKOFF, BACKOFF).build())
            .build();
    // a group bound to the destination (not run: the queue's rows show the relay's order)
    once.consumer("warehouse").subscribe("orders", (tx, e) -> {}).build();
  }

  /** What an ordered consumer of another process writes when it is built. */
  private void markOrdered() {
    db.execute(
        "INSERT INTO once_ordered_destination (destination, consumer_group, marked_at)"
            + " VALUES ('orders', 'warehouse', CURRENT_TIMESTAMP)");
  }

  /** Step s of every key in one producer transaction, step after step. */
  private void publish(int keys, int steps) {
    for (int s = 1; s <= steps; s++) {
      int step = s;
      once.useTransaction(
          tx -> {
            for (int k = 0; k < keys; k++) {
              tx.publish(
                  Event.of(EventId.of("step", "k" + k, step), "orders", "k" + k, "Step", "{}"));
            }
          });
    }
  }

  /** Runs batches until one publishes nothing (the clock stands still: no backoff runs out). */
  private static void runUntilIdle(Relay relay) {
    for (int i = 0; i < 100 && relay.runOnce() > 0; i++) {
      // each batch takes a key's next row once the one before it is out
    }
  }

  private static boolean crashed(Relay relay) {
    try {
      relay.runOnce();
      return false;
    } catch (Error e) {
      return true;
    }
  }

  /** The event ids of {@code key}'s queue rows, in the order the relay published them. */
  private List<String> queued(String key) {
    return queue().getOrDefault(key, List.of());
  }

  private Map<String, List<String>> queue() {
    Map<String, List<String>> byKey = new LinkedHashMap<>();
    try (Connection c = db.dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT event_key, event_id FROM once_queue ORDER BY id");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        byKey.computeIfAbsent(rs.getString(1), k -> new ArrayList<>()).add(rs.getString(2));
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    return byKey;
  }

  /**
   * How many queue rows arrived before an earlier step of their key (a republished copy of a step
   * that arrived already is not counted: the consumer sees it as a duplicate).
   */
  private long overtakings() {
    long overtaken = 0;
    for (List<String> ids : queue().values()) {
      int last = 0;
      for (String id : ids) {
        int step = Integer.parseInt(id.substring(id.lastIndexOf(':') + 1));
        if (step < last) {
          overtaken += ids.subList(0, ids.indexOf(id)).contains(id) ? 0 : 1;
        }
        last = Math.max(last, step);
      }
    }
    return overtaken;
  }
}
