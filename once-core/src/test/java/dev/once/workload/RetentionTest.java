package dev.once.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.once.ConfigurationException;
import dev.once.Consumer;
import dev.once.Retention;
import dev.once.RetentionPolicy;
import dev.once.test.TestDatabase;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** Retention on one database; one subclass per database. */
abstract class RetentionTest {

  /** A fresh database of the kind under test. */
  abstract TestDatabase database();

  /** 2,500 markers and 2,500 sent outbox rows (ids {@code old:1..2500}), three hours old. */
  abstract void insertOldRows(TestDatabase db);

  @Test
  void theBuilderRefusesMarkersKeptShorterThanRedeliveryPlusReplayAndSaysWhy() {
    assertThatThrownBy(
            () ->
                RetentionPolicy.builder()
                    .markers(Duration.ofDays(3))
                    .redeliveryHorizon(Duration.ofDays(1))
                    .replayHorizon(Duration.ofDays(7))
                    .build())
        .isInstanceOf(ConfigurationException.class)
        .hasMessageContaining("retention.markers")
        .hasMessageContaining("PT192H")
        .hasMessageContaining("second time");
  }

  @Test
  void oldMarkersAndSentRowsGoInSmallBatchesWhileTrafficGoesOnAndNewOnesStay() throws Exception {
    RetentionPolicy policy =
        RetentionPolicy.builder()
            .markers(Duration.ofHours(2))
            .redeliveryHorizon(Duration.ofHours(1))
            .replayHorizon(Duration.ofHours(1))
            .sentOutbox(Duration.ofHours(1))
            .batchSize(100)
            .build();
    try (Rig rig = new Rig(database(), b -> b.retention(policy))) {
      rig.db.execute("CREATE TABLE effects (event_id varchar(200))");
      // 2,500 old markers and sent rows, as a long run leaves them
      insertOldRows(rig.db);
      Consumer consumer =
          rig.consumer(
              "warehouse",
              Rig.fast(3),
              (tx, e) -> tx.update("INSERT INTO effects VALUES (?)", e.id().value()));
      AtomicBoolean traffic = new AtomicBoolean(true);
      ExecutorService pool = Executors.newFixedThreadPool(2);
      Future<?> producer =
          pool.submit(
              () -> {
                for (long id = 1; traffic.get(); id++) {
                  rig.publish("orders", id, "{}");
                }
                return null;
              });
      Future<?> worker =
          pool.submit(
              () -> {
                while (traffic.get()) {
                  rig.once.newRelay().runOnce();
                  consumer.runOnce();
                }
                return null;
              });
      Retention janitor = rig.once.newRetention();
      Retention rival = rig.once.newRetention();
      await("traffic flows before the round")
          .atMost(Duration.ofSeconds(20))
          .until(() -> rig.db.count("SELECT count(*) FROM effects") >= 50);
      Retention.Round round = janitor.runOnce();
      long before = rig.db.count("SELECT count(*) FROM effects");
      await("traffic flows after the round")
          .atMost(Duration.ofSeconds(20))
          .until(() -> rig.db.count("SELECT count(*) FROM effects") >= before + 50);
      traffic.set(false);
      producer.get();
      worker.get();
      rig.drain(consumer);
      pool.shutdown();

      assertThat(round.skipped()).isFalse();
      assertThat(round.markers()).isEqualTo(2500);
      assertThat(round.outbox()).isEqualTo(2500);
      assertThat(rig.db.count("SELECT count(*) FROM once_inbox WHERE event_id LIKE 'old:%'"))
          .isZero();
      long produced = rig.db.count("SELECT count(*) FROM once_outbox");
      assertThat(produced).as("new traffic was written").isPositive();
      assertThat(rig.db.count("SELECT count(*) FROM once_inbox")).isEqualTo(produced);
      assertThat(rig.db.count("SELECT count(*) FROM effects")).isEqualTo(produced);
      assertThat(rival.runOnce().total()).as("nothing old is left").isZero();
    }
  }

  @Test
  void oneInstanceAtATimeTheOtherSkipsTheRound() throws Exception {
    try (Rig rig = new Rig(database());
        var holder = rig.db.dataSource().getConnection()) {
      assertThat(rig.db.dialect().retention().tryRetentionLock(holder)).isTrue();
      assertThat(rig.once.newRetention().runOnce().skipped()).isTrue();
    }
  }
}
