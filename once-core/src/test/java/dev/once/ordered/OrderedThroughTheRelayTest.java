package dev.once.ordered;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.Consumer;
import dev.once.internal.postgres.PostgresStore;
import dev.once.jdbc.Dialect;
import dev.once.jdbc.JdbcDialect;
import dev.once.jdbc.RelayClaim;
import dev.once.jdbc.TransactionWaits;
import dev.once.relayorder.RefusingTransport;
import dev.once.test.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * An ordered consumer behind a broker that refuses the first publish of one event in seven: the
 * refused event backs off at the relay, and its key's later events wait for it there, so every
 * key's effects still follow publish order ({@link KeyedSteps#OUT_OF_ORDER}). The ordered consumer
 * marks its destination key-ordered when it is built; the relay of the same instance knows it at
 * once. The broken twin, a relay store that ignores the hold, lets later events overtake and is
 * caught.
 */
class OrderedThroughTheRelayTest {
  private static final int KEYS = 20;
  private static final int STEPS = 8;

  @Test
  void everyKeysEffectsFollowPublishOrderWhenTheBrokerRefusesSomeFirstPublishes() {
    try (KeyedSteps run = run(null)) {
      Consumer consumer =
          run.consumer(KeyedSteps::record, KeyedSteps.fast(3)).workers(4).ordered().build();
      run.publish(KEYS, STEPS);
      run.runUntil(consumer, KEYS * STEPS);
      consumer.close();

      assertThat(run.effects()).isEqualTo(KEYS * STEPS);
      assertThat(run.outOfOrder()).as("effects out of key order").isZero();
      assertThat(run.db.count("SELECT count(*) FROM once_outbox WHERE attempts > 0"))
          .as("refused once, then published")
          .isPositive();
    }
  }

  @Test
  void theCheckerCatchesARelayThatLetsALaterEventOvertakeOneInBackoff() {
    PostgresStore withoutHold =
        new PostgresStore() {
          @Override
          public RelayClaim claimRelayBatch(
              Connection c,
              TransactionWaits waits,
              Instant now,
              int limit,
              int relays,
              Set<String> keyOrdered)
              throws SQLException {
            return super.claimRelayBatch(c, waits, now, limit, relays, Set.of());
          }
        };
    try (KeyedSteps run =
        run(((JdbcDialect) dev.once.jdbc.Dialects.postgresql()).withStore(withoutHold))) {
      Consumer consumer =
          run.consumer(KeyedSteps::record, KeyedSteps.fast(3)).workers(4).ordered().build();
      run.publish(KEYS, STEPS);
      run.runUntil(consumer, KEYS * STEPS);
      consumer.close();

      assertThat(run.outOfOrder()).as("effects out of key order").isPositive();
    }
  }

  private static KeyedSteps run(Dialect onceDialect) {
    TestDatabase db = TestDatabase.embedded();
    return new KeyedSteps(
        db,
        db.dataSource(),
        null,
        null,
        queue -> new RefusingTransport(queue, id -> Math.floorMod(id.hashCode(), 7) == 0),
        onceDialect);
  }
}
