package dev.once;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.internal.postgres.PostgresFlavour;
import dev.once.jdbc.Dialect;
import dev.once.jdbc.Dialects;
import dev.once.jdbc.JdbcDialect;
import dev.once.spi.PublishResult;
import dev.once.spi.Receiver;
import dev.once.spi.Transport;
import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.TestDatabase;
import java.time.Duration;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * What one hop costs Once in round trips to PostgreSQL (statements run plus commits), counted on
 * the engine's own data source while the broker (here the table queue, on a data source of its own)
 * is not counted: a relay batch and a consumer batch, each run by the test thread. On PostgreSQL
 * the relay's settings, due partitions, locks and claim are one round trip, and the consumer's
 * bounds go with its markers; the relay's commit goes with its mark sent (a commit the server
 * already ran is not counted: pgjdbc sends nothing for it). The standard store over the same
 * flavour (the composing defaults a third-party dialect gets) costs what PostgreSQL cost before
 * they were folded: the twin shows the count sees each round trip more.
 */
class HopCostTest {

  /**
   * Round trips of one relay batch through a broker, and of one consumer batch of one event; and
   * the calls in both that make pgjdbc look a type up or format a time through a {@code Calendar}
   * ({@link ProducerCostTest.Counter#conversions}); and the date-times the relay batch binds
   * ({@link ProducerCostTest.Counter#dateTimes}: pgjdbc builds a calendar for each statement that
   * binds one; PostgreSQL's relay binds its instants as microseconds).
   */
  record Cost(long relayBatch, long consumerBatch, long conversions, long relayDateTimes) {}

  @Test
  void aHopCostsTwoRoundTripsToPublishAndThreeToProcess() throws Exception {
    try (TestDatabase db = TestDatabase.embedded()) {
      // before (one statement each for the settings, the due partitions and their locks; the
      // consumer's bounds a statement of their own): relay 6, consumer 4; with the settings,
      // partitions and locks folded and the claim apart: relay 4; with mark sent and the commit
      // apart: relay 3
      assertThat(hop(db, Dialects.postgresql()))
          .as(
              "round trips: relay (settings+partitions+locks+claim, mark sent+commit),"
                  + " consumer (bounds+markers, the handler's insert, commit)")
          // date-times: with the instants bound as OffsetDateTime, 3 (now twice in the claim,
          // sent_at in the mark sent)
          .isEqualTo(new Cost(2, 3, 0, 0));
    }
  }

  @Test
  void theComposingDefaultsCostOneRoundTripMoreEach() throws Exception {
    try (TestDatabase db = TestDatabase.embedded()) {
      Dialect standard = JdbcDialect.builder(new PostgresFlavour()).build();
      assertThat(hop(db, standard))
          .as(
              "round trips: relay (settings, partitions, locks, claim, mark sent, commit),"
                  + " consumer (bounds, marker, the handler's insert, commit)")
          .isEqualTo(new Cost(6, 4, 0, 3));
    }
  }

  /**
   * PostgreSQL's relay binds its claim's parameters each with its own setter and keeps the texts of
   * its waits (lock_timeout, idle_in_transaction_session_timeout): the same two strings every
   * batch. Before, each batch built a parameter list, boxed its numbers and made both texts anew: 6
   * in 3 batches. Counted through a transport that confirms every message, so that the relay's own
   * statements are all that is bound.
   */
  @Test
  void aRelayBatchMakesNoTextsOfItsOwn() throws Exception {
    try (TestDatabase db = TestDatabase.embedded()) {
      ProducerCostTest.Counter counter = new ProducerCostTest.Counter(db.dataSource());
      try (Once once =
          Once.builder()
              .dataSource(counter.dataSource)
              .transport(confirmingAll())
              .destinations("orders")
              .build()) {
        Relay relay = once.newRelay();
        relay.runOnce();
        Set<String> texts = Collections.newSetFromMap(new IdentityHashMap<>());
        for (int i = 0; i < 3; i++) {
          int n = i;
          once.useTransaction(
              tx -> tx.publish(Event.of(EventId.of("order-paid", n), "orders", "k", "T", "{}")));
          counter.reset();
          assertThat(relay.runOnce()).isEqualTo(1);
          texts.addAll(counter.boundTexts);
        }
        assertThat(texts).as("texts the relay bound in 3 batches").hasSize(2);
      }
    }
  }

  /** A broker that confirms every message it is given and keeps none. */
  private static Transport confirmingAll() {
    return new Transport() {
      @Override
      public String name() {
        return "confirming";
      }

      @Override
      public void declare(String destination, String consumerId) {}

      @Override
      public PublishResult publish(List<Event> batch, Duration confirmTimeout) {
        return PublishResult.allConfirmed(batch.size());
      }

      @Override
      public Receiver receiver(String destination, String consumerId) {
        throw new UnsupportedOperationException();
      }

      @Override
      public void close() {}
    };
  }

  private static Cost hop(TestDatabase db, Dialect dialect) throws Exception {
    db.execute("CREATE TABLE hop_effects (event_id text PRIMARY KEY)");
    ProducerCostTest.Counter counter = new ProducerCostTest.Counter(db.dataSource());
    try (TableQueueTransport queue = TableQueueTransport.create(db.dataSource());
        Once once =
            Once.builder()
                .dataSource(counter.dataSource)
                .dialect(dialect)
                .transport(queue)
                .destinations("orders")
                .build()) {
      Consumer consumer =
          once.consumer("warehouse")
              .subscribe(
                  "orders",
                  (tx, e) ->
                      tx.update("INSERT INTO hop_effects (event_id) VALUES (?)", e.id().value()))
              .batchSize(1)
              .build();
      once.useTransaction(
          tx -> {
            for (int i = 0; i < 3; i++) { // three keys: more than one partition
              tx.publish(Event.of(EventId.of("order-paid", i), "orders", "k" + i, "T", "{}"));
            }
          });
      Relay relay = once.newRelay();
      counter.reset();
      assertThat(relay.runOnce()).isEqualTo(3);
      long relayBatch = roundTrips(counter);
      long conversions = counter.conversions.get();
      long relayDateTimes = counter.dateTimes.get();
      long consumerBatch = Long.MAX_VALUE;
      for (int i = 0; i < 3; i++) { // one event a batch: the standard store inserts one by one
        counter.reset();
        assertThat(consumer.runOnce()).isEqualTo(1);
        consumerBatch = Math.min(consumerBatch, roundTrips(counter));
        conversions += counter.conversions.get();
      }
      assertThat(db.count("SELECT count(*) FROM hop_effects")).isEqualTo(3);
      assertThat(db.count("SELECT count(*) FROM once_inbox")).isEqualTo(3);
      return new Cost(relayBatch, consumerBatch, conversions, relayDateTimes);
    }
  }

  /** Statements run and commits on the test thread since the counter's last reset. */
  private static long roundTrips(ProducerCostTest.Counter counter) {
    return counter.executions.get() + counter.commits.get();
  }
}
