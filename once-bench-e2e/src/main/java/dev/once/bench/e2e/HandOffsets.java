package dev.once.bench.e2e;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * The offsets of one hand-written Kafka consumer (ceiling C): a record's offset becomes committable
 * when its batch's database transaction has committed ({@link #processed}); the committable offsets
 * go to the broker asynchronously at most every {@code interval} (a later commit carries every
 * partition's latest, so a failed one is made good by the next), synchronously for the partitions
 * being revoked and at close. Called on the consumer's thread only.
 */
final class HandOffsets implements ConsumerRebalanceListener {
  private static final Duration COMMIT_TIMEOUT = Duration.ofSeconds(30);

  private final Consumer<?, ?> consumer;
  private final LongAdder commits;
  private final long intervalNanos;
  private final LongSupplier nanoTime;
  private final Map<TopicPartition, OffsetAndMetadata> processed = new HashMap<>();
  private boolean dirty;
  private long lastCommit;

  HandOffsets(
      Consumer<?, ?> consumer, LongAdder commits, Duration interval, LongSupplier nanoTime) {
    this.consumer = consumer;
    this.commits = commits;
    this.intervalNanos = interval.toNanos();
    this.nanoTime = nanoTime;
    this.lastCommit = nanoTime.getAsLong();
  }

  /** {@code r}'s batch has committed its effects: its offset may be committed. */
  void processed(ConsumerRecord<?, ?> r) {
    processed.merge(
        new TopicPartition(r.topic(), r.partition()),
        new OffsetAndMetadata(r.offset() + 1),
        (a, b) -> a.offset() >= b.offset() ? a : b);
    dirty = true;
  }

  /** Commits (asynchronously) what was processed, if the interval has passed since the last. */
  void commitIfDue() {
    long now = nanoTime.getAsLong();
    if (dirty && now - lastCommit >= intervalNanos) {
      consumer.commitAsync(Map.copyOf(processed), null);
      commits.increment();
      dirty = false;
      lastCommit = now;
    }
  }

  /** At close: commits what was processed and waits for the broker's answer. */
  void commitAtClose() {
    if (dirty) {
      consumer.commitSync(Map.copyOf(processed), COMMIT_TIMEOUT);
      commits.increment();
      dirty = false;
    }
    processed.clear(); // the revocation that closing brings has nothing left to commit
  }

  @Override
  public void onPartitionsRevoked(Collection<TopicPartition> revoked) {
    // inside poll(): every record polled before has had its batch committed to the database
    Map<TopicPartition, OffsetAndMetadata> leaving = new HashMap<>();
    for (TopicPartition tp : revoked) {
      OffsetAndMetadata o = processed.remove(tp);
      if (o != null) {
        leaving.put(tp, o);
      }
    }
    if (!leaving.isEmpty()) {
      consumer.commitSync(leaving, COMMIT_TIMEOUT);
      commits.increment();
    }
  }

  @Override
  public void onPartitionsLost(Collection<TopicPartition> lost) {
    // no longer ours to commit: their next owner reads from the last committed offset again
    lost.forEach(processed::remove);
  }

  @Override
  public void onPartitionsAssigned(Collection<TopicPartition> assigned) {}
}
