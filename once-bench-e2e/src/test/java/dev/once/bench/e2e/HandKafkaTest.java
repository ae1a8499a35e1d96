package dev.once.bench.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.once.bench.e2e.HandBroker.HandReceiver;
import dev.once.bench.e2e.HandBroker.Msg;
import dev.once.kafka.embedded.EmbeddedKafka;
import dev.once.spi.ForwardingDataSource;
import dev.once.test.TestDatabase;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Ceiling C's Kafka consumer (a real broker, the local PostgreSQL): it commits a batch's offsets
 * only after the batch's database commit, and not per batch but every commit interval; a consumer
 * that crashes before its database commit or between it and its offsets' commit loses no effect and
 * doubles none when it starts again.
 */
class HandKafkaTest {
  private static final int ORDERS = 200;
  private static final int BATCH = 10;
  private static EmbeddedKafka kafka;

  @BeforeAll
  static void startBroker() throws IOException {
    kafka = EmbeddedKafka.in(Files.createTempDirectory("once-bench-kafka-test")).start();
  }

  @AfterAll
  static void stopBroker() {
    kafka.stop();
  }

  @Test
  void offsetsAreCommittedEveryIntervalNotPerBatch() throws Exception {
    AtomicLong clock = new AtomicLong(); // stands still: no interval passes until the test says
    try (TestDatabase db = TestDatabase.empty("local");
        HandKafka broker = new HandKafka(kafka.bootstrapServers(), 3, BATCH, clock::get)) {
      Worker w = new Worker(db.dataSource(), broker, Crash.NONE);
      publish(broker, 1, ORDERS);
      w.start();
      await().atMost(Duration.ofSeconds(60)).until(() -> effects(db.dataSource()) == ORDERS);
      assertThat(w.batches.get())
          .as("consumer transactions")
          .isGreaterThanOrEqualTo(ORDERS / BATCH);
      assertThat(commits(broker)).as("offset commits within one interval").isZero();

      clock.addAndGet(HandKafka.COMMIT_INTERVAL.toNanos());
      // the idle consumer commits what its batches processed at its next poll, once
      await().atMost(Duration.ofSeconds(60)).until(() -> commits(broker) == 1);
      w.stop();
      assertThat(commits(broker)).as("nothing left to commit at close").isEqualTo(1);
      assertThat(committed(broker)).as("offsets committed, all partitions").isEqualTo(ORDERS);
    }
  }

  private static long commits(HandKafka broker) {
    return broker.counts().get("offset_commits");
  }

  /** The sum of the committed offsets of the group on the run's topic. */
  private static long committed(HandKafka broker) throws Exception {
    try (Admin admin =
        Admin.create(
            Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()))) {
      return admin
          .listConsumerGroupOffsets(broker.groupId(BenchTables.C_CONSUMER))
          .partitionsToOffsetAndMetadata()
          .get(30, TimeUnit.SECONDS)
          .values()
          .stream()
          .mapToLong(OffsetAndMetadata::offset)
          .sum();
    }
  }

  @Test
  void aConsumerCrashedBeforeItsDatabaseCommitLosesNoEffect() throws Exception {
    restartAfter(Crash.BEFORE_DATABASE_COMMIT);
  }

  @Test
  void aConsumerCrashedBetweenItsDatabaseCommitAndItsOffsetsDoublesNoEffect() throws Exception {
    restartAfter(Crash.BEFORE_OFFSETS);
  }

  /** Where the first worker's fourth batch stops it. */
  private enum Crash {
    NONE,
    BEFORE_DATABASE_COMMIT,
    BEFORE_OFFSETS
  }

  private void restartAfter(Crash crash) throws Exception {
    try (TestDatabase db = TestDatabase.empty("local");
        HandKafka broker = new HandKafka(kafka.bootstrapServers(), 3, BATCH)) {
      publish(broker, 1, ORDERS);
      Worker first = new Worker(db.dataSource(), broker, crash);
      first.start();
      await().atMost(Duration.ofSeconds(60)).until(() -> first.crashed.get() != null);
      first.stop();
      long before = effects(db.dataSource());
      assertThat(before).as("effects committed before the crash").isLessThan(ORDERS);

      Worker second = new Worker(db.dataSource(), broker, Crash.NONE);
      second.start();
      await().atMost(Duration.ofSeconds(60)).until(() -> effects(db.dataSource()) == ORDERS);
      second.stop();
      assertThat(effects(db.dataSource())).as("one effect per order").isEqualTo(ORDERS);
      assertThat(BenchTables.duplicates(db.dataSource(), "bench_c_effects")).isZero();
      if (crash == Crash.BEFORE_OFFSETS) {
        // the crashed batch's effects were committed, its offsets not: it comes again, and its
        // markers make it a duplicate
        assertThat(second.received.get()).isGreaterThan(ORDERS - (int) before);
      }
    }
  }

  private static void publish(HandKafka broker, long first, int n) throws Exception {
    broker.declare(BenchTables.C_IN, BenchTables.C_CONSUMER);
    List<Msg> batch = new ArrayList<>();
    for (long id = first; id < first + n; id++) {
      batch.add(
          new Msg(
              "bench-paid:" + id,
              BenchTables.C_IN,
              Long.toString(id),
              "BenchPaid",
              Pipeline.payload(id).getBytes(StandardCharsets.UTF_8),
              null));
    }
    try (HandBroker.Publisher p = broker.publisher()) {
      p.publishConfirmed(batch);
    }
  }

  private static long effects(DataSource ds) {
    return BenchTables.count(ds, "SELECT count(*) FROM bench_c_effects");
  }

  /** One hand-written consumer worker (ceiling C's, one hop) on a thread, crashing if told to. */
  private static final class Worker {
    private final HandConsumer consumer;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicReference<Throwable> crashed = new AtomicReference<>();
    private final AtomicInteger batches = new AtomicInteger();
    private final AtomicInteger received = new AtomicInteger();
    private final Thread thread;

    Worker(DataSource ds, HandKafka kafka, Crash crash) {
      BenchTables.run(ds, HandSchema.CREATE);
      BenchSettings s = new BenchSettings(ORDERS, 1, BATCH, 1, 200, 1, 1, 1, 0, 60, false);
      AtomicInteger transactions = new AtomicInteger();
      DataSource crashing =
          new ForwardingDataSource(ds) {
            @Override
            public Connection getConnection() throws SQLException {
              if (crash == Crash.BEFORE_DATABASE_COMMIT && transactions.incrementAndGet() == 4) {
                throw new SQLException("crash before the database commit");
              }
              return super.getConnection();
            }
          };
      HandBroker broker =
          new Crashing(kafka, crash == Crash.BEFORE_OFFSETS ? 4 : 0, batches, received);
      consumer =
          new HandConsumer(
              crashing,
              broker,
              s,
              HandPipeline.Shape.ONE_HOP,
              false,
              new AtomicLong(),
              new E2eTimings(BenchTables.C_IN, BenchTables.C_CONSUMER),
              new HandPipeline.Signal(),
              new HandSteps());
      thread =
          new Thread(
              () -> {
                try {
                  consumer.loop(
                      BenchTables.C_IN, BenchTables.C_CONSUMER, false, () -> running.get());
                } catch (Throwable e) {
                  crashed.set(e);
                }
              },
              "hand-kafka-test-worker");
    }

    void start() {
      thread.start();
    }

    void stop() throws InterruptedException {
      running.set(false);
      thread.join(30_000);
      assertThat(thread.isAlive()).as("worker stopped").isFalse();
    }
  }

  /** The broker's receiver, counting batches, throwing instead of the {@code crashAt}th ack. */
  private static final class Crashing implements HandBroker {
    private final HandKafka kafka;
    private final int crashAt;
    private final AtomicInteger batches;
    private final AtomicInteger received;

    Crashing(HandKafka kafka, int crashAt, AtomicInteger batches, AtomicInteger received) {
      this.kafka = kafka;
      this.crashAt = crashAt;
      this.batches = batches;
      this.received = received;
    }

    @Override
    public HandReceiver receiver(String destination, String group) throws IOException {
      HandReceiver r = kafka.receiver(destination, group);
      return new HandReceiver() {
        @Override
        public List<Msg> poll(int max, long waitMillis) throws InterruptedException {
          List<Msg> got = r.poll(max, waitMillis);
          received.addAndGet(got.size());
          return got;
        }

        @Override
        public void ack(List<Msg> messages) throws IOException {
          if (batches.incrementAndGet() == crashAt) {
            throw new IOException("crash between the database commit and the offsets");
          }
          r.ack(messages);
        }

        @Override
        public void close() {
          r.close();
        }
      };
    }

    @Override
    public void declare(String destination, String group) {
      kafka.declare(destination, group);
    }

    @Override
    public void purge(String destination, String group) {}

    @Override
    public Publisher publisher() throws IOException {
      return kafka.publisher();
    }

    @Override
    public void close() {}
  }
}
