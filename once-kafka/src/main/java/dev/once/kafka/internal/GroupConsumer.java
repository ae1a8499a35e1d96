package dev.once.kafka.internal;

import dev.once.kafka.KafkaSettings;
import dev.once.spi.Delivery;
import dev.once.spi.MessageDecoder;
import dev.once.spi.Receiver;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Header;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Kafka consumer of one (destination, group) in this process, polled by its own thread, and the
 * receivers of the consumer's workers that it hands records out to through a {@link
 * PartitionLedger} (order per key, what may be committed, redeliveries; see there).
 *
 * <ul>
 *   <li><b>The poll loop.</b> Polls, decodes what came (outside the ledger's lock), commits the
 *       offset note that reserves the polled offsets <em>before</em> they are handed out, opens
 *       them in the ledger, and every {@code commitInterval} commits each partition's lowest
 *       unacknowledged offset, asynchronously (synchronously when a partition is revoked or the
 *       consumer closes). Auto-commit is off.
 *   <li><b>Back-pressure.</b> Above {@code maxInFlight} open records every partition is paused; the
 *       poll thread keeps polling (so {@code max.poll.interval.ms} is never exceeded by slow
 *       workers) and resumes them at half.
 *   <li><b>Rebalances</b>: {@link Rebalance}. Across owners see {@link OffsetNote}.
 *   <li><b>Membership.</b> The consumer is in the group while a receiver is open. With none open
 *       for {@code leaveAfterIdle} (its {@code Consumer} closed, the transport still open) it
 *       leaves the group, its partitions handed over cleanly, instead of holding them with nobody
 *       to work on their records; it joins again when a receiver is asked for.
 * </ul>
 */
public final class GroupConsumer implements AutoCloseable {
  /** The header of a replayed record: the Kafka group id it is for; other groups skip it. */
  public static final String REPLAY_FOR = "once-replay-for";

  private static final Logger log = LoggerFactory.getLogger(GroupConsumer.class);
  private static final Duration COMMIT_TIMEOUT = Duration.ofSeconds(30);

  private final KafkaSettings settings;
  private final String destination;
  private final String topic;
  private final String groupId;
  private final Function<Properties, Consumer<byte[], byte[]>> clients;
  private final PartitionLedger ledger;
  private final AtomicInteger lostPartitions = new AtomicInteger();
  private final AtomicInteger receivers = new AtomicInteger();
  private volatile long idleSince = System.nanoTime();
  private boolean subscribed; // the poll thread's alone
  private final Thread poller;
  private volatile boolean running = true;
  private volatile boolean paused;
  private volatile Consumer<byte[], byte[]> consumer; // used by the poll thread alone
  private Rebalance rebalance; // the poll thread's alone

  /**
   * Starts the consumer's poll thread.
   *
   * @param clients makes the Kafka consumer from its properties ({@code KafkaConsumer::new})
   */
  public GroupConsumer(
      KafkaSettings settings,
      String destination,
      String topic,
      String groupId,
      Function<Properties, Consumer<byte[], byte[]>> clients) {
    this.settings = settings;
    this.destination = destination;
    this.topic = topic;
    this.groupId = groupId;
    this.clients = clients;
    this.ledger = new PartitionLedger(settings.maxNackDelay(), System::nanoTime);
    this.poller = new Thread(this::run, "once-kafka-" + groupId);
    this.poller.setDaemon(true);
    this.poller.start();
  }

  public Receiver newReceiver() {
    receivers.incrementAndGet();
    return new KafkaReceiver(ledger, this::receiverClosed);
  }

  private void receiverClosed() {
    if (receivers.decrementAndGet() == 0) {
      idleSince = System.nanoTime();
    }
  }

  /**
   * Hands a key's records out one at a time from now on (see {@link PartitionLedger}): before the
   * first receiver polls.
   */
  public void inKeyOrder() {
    ledger.inKeyOrder();
  }

  /** Whether the partitions are paused for back-pressure (for tests and status). */
  public boolean paused() {
    return paused;
  }

  /** How many partitions this consumer lost (its session or poll interval expired), for tests. */
  public int lostPartitions() {
    return lostPartitions.get();
  }

  /** Partitions this process's member holds now (for tests and status). */
  public int assignedPartitions() {
    return ledger.assignedPartitions();
  }

  /** Records polled and not yet acknowledged (for tests and status). */
  public int openRecords() {
    return ledger.openRecords();
  }

  // ---------------------------------------------------------------- the poll thread

  private void run() {
    long backoff = 100;
    try {
      consumer = clients.apply(ConsumerProperties.of(settings, groupId));
      rebalance =
          new Rebalance(groupId, consumer, ledger, settings.revokeTimeout(), lostPartitions);
      long lastCommit = System.nanoTime();
      while (running) {
        try {
          if (!member()) {
            sleep(100);
            continue;
          }
          backPressure();
          ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(100));
          if (!records.isEmpty()) {
            take(records);
          }
          if (System.nanoTime() - lastCommit >= settings.commitInterval().toNanos()) {
            commit();
            lastCommit = System.nanoTime();
          }
          backoff = 100;
        } catch (WakeupException e) {
          // close() woke us up
        } catch (RuntimeException e) {
          if (!running) {
            break;
          }
          log.warn("kafka consumer {}: {}; polling again in {} ms", groupId, e.toString(), backoff);
          sleep(backoff);
          backoff = Math.min(5_000, backoff * 2);
        }
      }
    } catch (RuntimeException e) {
      log.error("kafka consumer {} stopped: {}", groupId, e.toString());
    } finally {
      shutDown();
    }
  }

  /**
   * Joins the group while a receiver is open; leaves it (a clean handover: the revoke commits what
   * was acknowledged) when none was for {@code leaveAfterIdle}. Returns whether it is in the group.
   */
  private boolean member() {
    if (!subscribed && receivers.get() > 0) {
      consumer.subscribe(List.of(topic), rebalance);
      subscribed = true;
    } else if (subscribed
        && receivers.get() == 0
        && System.nanoTime() - idleSince >= settings.leaveAfterIdle().toNanos()) {
      log.info(
          "kafka consumer {}: no receiver open for {}; leaving the group, its partitions go to"
              + " the other members",
          groupId,
          settings.leaveAfterIdle());
      consumer.unsubscribe(); // revokes what it holds, then leaves
      subscribed = false;
      paused = false;
    }
    return subscribed;
  }

  private void backPressure() {
    int open = ledger.openRecords();
    if (open >= settings.maxInFlight()) {
      if (!paused) {
        log.debug("kafka consumer {}: {} records open, pausing", groupId, open);
      }
      paused = true;
      consumer.pause(consumer.assignment()); // again each time: new partitions may have come
    } else if (paused && open <= settings.maxInFlight() / 2) {
      paused = false;
      consumer.resume(consumer.paused());
    }
  }

  /**
   * Reserves the polled offsets in the committed note, then opens the records in the ledger. If
   * that fails, the consumer's position is past these records already: it is put back, or a later
   * record's offset would be committed over them (found by once verify).
   */
  private void take(ConsumerRecords<byte[], byte[]> records) {
    Map<TopicPartition, List<PartitionLedger.Polled>> batch = decode(records);
    try {
      Map<TopicPartition, OffsetAndMetadata> reserve = ledger.reserve(batch);
      if (!reserve.isEmpty()) {
        consumer.commitSync(reserve, COMMIT_TIMEOUT);
        ledger.committed(reserve);
      }
      // not ours (any more): put the position back, whoever owns it reads them again
      Set<TopicPartition> owned = consumer.assignment();
      ledger
          .add(batch)
          .forEach(
              (tp, first) -> {
                if (owned.contains(tp)) {
                  consumer.seek(tp, first);
                }
              });
    } catch (RuntimeException e) {
      rewind(records);
      throw e;
    }
  }

  /** Puts each partition's position back to the first of these records that it still owns. */
  private void rewind(ConsumerRecords<byte[], byte[]> records) {
    Set<TopicPartition> owned = consumer.assignment();
    for (TopicPartition tp : records.partitions()) {
      if (owned.contains(tp)) {
        consumer.seek(tp, records.records(tp).get(0).offset());
      }
    }
  }

  /** Each partition's records as the shared decoder reads them; a replay for another group null. */
  private Map<TopicPartition, List<PartitionLedger.Polled>> decode(
      ConsumerRecords<byte[], byte[]> records) {
    Map<TopicPartition, List<PartitionLedger.Polled>> batch = new LinkedHashMap<>();
    for (TopicPartition tp : records.partitions()) {
      List<ConsumerRecord<byte[], byte[]>> rs = records.records(tp);
      List<PartitionLedger.Polled> polled = new ArrayList<>(rs.size());
      for (ConsumerRecord<byte[], byte[]> r : rs) {
        polled.add(
            new PartitionLedger.Polled(r.offset(), isReplayForAnotherGroup(r) ? null : decode(r)));
      }
      batch.put(tp, polled);
    }
    return batch;
  }

  /**
   * Whether {@code r} is a replay addressed to another group (skipped, never handed out). A record
   * that names no group, or two (a Once header twice), or one without a value is not skipped: the
   * decoder makes the last two malformed, dead-lettered in every group.
   */
  private boolean isReplayForAnotherGroup(ConsumerRecord<byte[], byte[]> r) {
    Iterator<Header> named = r.headers().headers(REPLAY_FOR).iterator();
    if (!named.hasNext()) {
      return false;
    }
    byte[] group = named.next().value();
    return !named.hasNext()
        && group != null
        && !groupId.equals(new String(group, StandardCharsets.UTF_8));
  }

  private Delivery decode(ConsumerRecord<byte[], byte[]> r) {
    Delivery d = MessageDecoder.decode(RecordCodec.raw(destination, r), 1, false, null);
    if (d.isMalformed()) {
      log.warn(
          "kafka consumer {}: record {}-{}@{} is malformed ({}): dead letter {}",
          groupId,
          r.topic(),
          r.partition(),
          r.offset(),
          d.malformed(),
          d.event().id());
    }
    return d;
  }

  /** Commits each partition's lowest unacknowledged offset if it moved, asynchronously. */
  private void commit() {
    Map<TopicPartition, OffsetAndMetadata> offsets = ledger.toCommit();
    if (offsets.isEmpty()) {
      return;
    }
    consumer.commitAsync(
        offsets,
        (done, error) -> {
          if (error != null) {
            log.debug("kafka consumer {}: async commit failed: {}", groupId, error.toString());
            ledger.commitFailed(offsets.keySet());
          }
        });
  }

  private void shutDown() {
    try {
      if (consumer != null) {
        try {
          rebalance.release(ledger.partitions(), true);
        } catch (RuntimeException e) {
          log.debug("kafka consumer {}: final commit failed: {}", groupId, e.toString());
        }
        consumer.close(Duration.ofSeconds(5));
      }
    } catch (RuntimeException e) {
      log.debug("kafka consumer {}: close failed: {}", groupId, e.toString());
    }
  }

  private static void sleep(long millis) {
    try {
      TimeUnit.MILLISECONDS.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    running = false;
    ledger.stop();
    Consumer<byte[], byte[]> c = consumer;
    if (c != null) {
      c.wakeup();
    }
    try {
      poller.join(settings.revokeTimeout().toMillis() + 15_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
