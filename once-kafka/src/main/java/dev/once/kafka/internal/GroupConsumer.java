package dev.once.kafka.internal;

import dev.once.Event;
import dev.once.kafka.KafkaSettings;
import dev.once.spi.Delivery;
import dev.once.spi.MessageDecoder;
import dev.once.spi.Receiver;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Kafka consumer of one (destination, group) in this process, polled by its own thread, and the
 * receivers of the consumer's workers that it hands records out to.
 *
 * <ul>
 *   <li><b>Order and parallelism.</b> A key is in one receiver at a time: a record is handed out
 *       only if no earlier open record of its key (same partition) is held by another receiver or
 *       waits for a retry. Other keys of the partition go to other workers meanwhile.
 *   <li><b>Offsets.</b> Auto-commit is off. What is committed per partition is the lowest offset
 *       not yet acknowledged (the highest contiguous processed offset + 1), every {@code
 *       commitInterval}, asynchronously, and synchronously when a partition is revoked or the
 *       consumer closes. A polled but unfinished record is never behind a committed offset.
 *   <li><b>Back-pressure.</b> Above {@code maxInFlight} open records every partition is paused; the
 *       poll thread keeps polling (so {@code max.poll.interval.ms} is never exceeded by slow
 *       workers) and resumes them at half.
 *   <li><b>Rebalances.</b> Revoked: nothing more is handed out from those partitions, records in
 *       flight get {@code revokeTimeout} to finish, then the offsets are committed and the
 *       partitions released; an acknowledgement that comes later is dropped (the new owner gets the
 *       record again and the inbox makes it a DUPLICATE). Lost: dropped, nothing committed.
 *   <li><b>Redeliveries.</b> A nacked record waits in memory and comes back with its count + 1; a
 *       closed receiver's records come back at once. Across owners see {@link OffsetNote}.
 * </ul>
 */
public final class GroupConsumer implements AutoCloseable {
  /** The header of a replayed record: the Kafka group id it is for; other groups skip it. */
  public static final String REPLAY_FOR = "once-replay-for";

  private static final Logger log = LoggerFactory.getLogger(GroupConsumer.class);

  /** Offsets reserved ahead in the committed note before records are handed out. */
  static final long RESERVE = 1000;

  /**
   * For tests: the next n reservation commits fail as a commit during a rebalance does ({@code
   * RebalanceInProgressException}).
   */
  public static final AtomicInteger reservationFaults = new AtomicInteger();

  private final KafkaSettings settings;
  private final String destination;
  private final String topic;
  private final String groupId;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private final Map<TopicPartition, Part> parts = new HashMap<>();
  private final AtomicInteger rotation = new AtomicInteger();
  private final Thread poller;
  private int openRecords;
  private volatile boolean running = true;
  private volatile boolean paused;
  private KafkaConsumer<byte[], byte[]> consumer; // the poll thread's alone

  /** One assigned partition. Replaced by a new object when assigned again. */
  private final java.util.concurrent.atomic.AtomicInteger lostPartitions =
      new java.util.concurrent.atomic.AtomicInteger();

  static final class Part {
    final TopicPartition tp;
    final TreeMap<Long, Rec> open = new TreeMap<>();
    long fetchedTo = -1;
    long reservedMark;
    long redeliveredUpTo;
    int redeliveryCount;
    OffsetNote note;
    long lastCommitted = -1;
    boolean revoking;
    boolean gone;

    Part(TopicPartition tp, long committed, OffsetNote note) {
      this.tp = tp;
      this.note = note;
      this.lastCommitted = committed;
      this.reservedMark = note.mark();
    }

    /** The lowest offset not acknowledged, or -1 if nothing was polled yet. */
    long committable() {
      if (!open.isEmpty()) {
        return open.firstKey();
      }
      return fetchedTo;
    }
  }

  /** One polled record and its state. */
  static final class Rec {
    final Part part;
    final long offset;
    final String key;
    final Event event;
    final String malformed;
    int deliveries;
    boolean redelivered;
    KafkaReceiver owner;
    boolean delayed;
    long dueNanos;

    Rec(Part part, long offset, String key, Event event, String malformed) {
      this.part = part;
      this.offset = offset;
      this.key = key;
      this.event = event;
      this.malformed = malformed;
    }

    Delivery delivery() {
      return new Delivery(event, deliveries, redelivered, this, malformed);
    }
  }

  public GroupConsumer(KafkaSettings settings, String destination, String topic, String groupId) {
    this.settings = settings;
    this.destination = destination;
    this.topic = topic;
    this.groupId = groupId;
    this.poller = new Thread(this::run, "once-kafka-" + groupId);
    this.poller.setDaemon(true);
    this.poller.start();
  }

  /** The consumer properties, also for tests that check them. */
  public static Properties properties(KafkaSettings settings, String groupId) {
    Properties p = Clients.common(settings, "once-" + groupId);
    p.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    // one poll may bring at most maxInFlight records: the open records stay below twice that
    p.put(
        ConsumerConfig.MAX_POLL_RECORDS_CONFIG,
        String.valueOf(Math.min(500, settings.maxInFlight())));
    p.put(
        ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
        CooperativeStickyAssignor.class.getName());
    p.put(
        ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG,
        String.valueOf(settings.sessionTimeout().toMillis()));
    p.put(
        ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG,
        String.valueOf(Math.max(100, settings.sessionTimeout().toMillis() / 5)));
    p.put(
        ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG,
        String.valueOf(Math.max(60_000, settings.revokeTimeout().toMillis() * 4)));
    p.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "false");
    p.putAll(settings.extra()); // the user's word is the last
    return p;
  }

  public Receiver newReceiver() {
    return new KafkaReceiver(this);
  }

  // ---------------------------------------------------------------- the poll thread

  private void run() {
    long backoff = 100;
    try {
      consumer = new KafkaConsumer<>(properties(settings, groupId));
      consumer.subscribe(List.of(topic), new Rebalance());
      long lastCommit = System.nanoTime();
      while (running) {
        try {
          backPressure();
          ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(100));
          if (!records.isEmpty()) {
            try {
              add(records);
            } catch (RuntimeException e) {
              // The consumer's position is past these records already: fetch them again, or a
              // later record's offset would be committed over them (found by once verify).
              rewind(records);
              throw e;
            }
          }
          if (System.nanoTime() - lastCommit >= settings.commitInterval().toNanos()) {
            commit(false);
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

  private void backPressure() {
    int open;
    lock.lock();
    try {
      open = openRecords;
    } finally {
      lock.unlock();
    }
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

  /** Whether the partitions are paused for back-pressure (for tests and status). */
  public boolean paused() {
    return paused;
  }

  /** Partitions this process's member holds now (for tests and status). */
  /** How many partitions this consumer lost (its session or poll interval expired), for tests. */
  public int lostPartitions() {
    return lostPartitions.get();
  }

  public int assignedPartitions() {
    lock.lock();
    try {
      return parts.size();
    } finally {
      lock.unlock();
    }
  }

  /** Records polled and not yet acknowledged (for tests and status). */
  public int openRecords() {
    lock.lock();
    try {
      return openRecords;
    } finally {
      lock.unlock();
    }
  }

  private void add(ConsumerRecords<byte[], byte[]> records) {
    // First make sure the committed note covers every offset about to be handed out.
    Map<TopicPartition, OffsetAndMetadata> reserve = new HashMap<>();
    lock.lock();
    try {
      for (TopicPartition tp : records.partitions()) {
        Part p = parts.get(tp);
        List<ConsumerRecord<byte[], byte[]>> rs = records.records(tp);
        long last = rs.get(rs.size() - 1).offset();
        if (p != null && last > p.reservedMark) {
          long at = p.committable() >= 0 ? p.committable() : rs.get(0).offset();
          p.reservedMark = last + RESERVE;
          p.note = p.note.at(at, p.reservedMark);
          reserve.put(tp, new OffsetAndMetadata(at, p.note.encode()));
        }
      }
    } finally {
      lock.unlock();
    }
    if (!reserve.isEmpty()) {
      if (reservationFaults.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
        throw new RebalanceInProgressException("injected by a test");
      }
      consumer.commitSync(reserve, Duration.ofSeconds(30));
      lock.lock();
      try {
        reserve.forEach(
            (tp, o) -> {
              Part p = parts.get(tp);
              if (p != null) {
                p.lastCommitted = o.offset();
              }
            });
      } finally {
        lock.unlock();
      }
    }
    lock.lock();
    try {
      for (TopicPartition tp : records.partitions()) {
        Part p = parts.get(tp);
        if (p == null || p.revoking) {
          // not ours (any more): put the position back, whoever owns it reads them again
          if (consumer.assignment().contains(tp)) {
            consumer.seek(tp, records.records(tp).get(0).offset());
          }
          continue;
        }
        for (ConsumerRecord<byte[], byte[]> r : records.records(tp)) {
          if (isReplayForAnotherGroup(r)) {
            p.fetchedTo = r.offset() + 1; // never handed out: committed with the next offsets
            continue;
          }
          Rec rec = decode(p, r);
          if (r.offset() <= p.redeliveredUpTo) {
            rec.redelivered = true;
            rec.deliveries = p.redeliveryCount;
          } else {
            rec.deliveries = 1;
          }
          p.open.put(r.offset(), rec);
          p.fetchedTo = r.offset() + 1;
          openRecords++;
        }
      }
      changed.signalAll();
    } finally {
      lock.unlock();
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

  private boolean isReplayForAnotherGroup(ConsumerRecord<byte[], byte[]> r) {
    Header h = r.headers().lastHeader(REPLAY_FOR);
    return h != null && !groupId.equals(new String(h.value(), StandardCharsets.UTF_8));
  }

  private Rec decode(Part p, ConsumerRecord<byte[], byte[]> r) {
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
    return new Rec(p, r.offset(), d.event().key(), d.event(), d.malformed());
  }

  /** Commits each partition's lowest unacknowledged offset if it moved. */
  private void commit(boolean sync) {
    Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
    lock.lock();
    try {
      for (Part p : parts.values()) {
        long at = p.committable();
        if (at >= 0 && at != p.lastCommitted) {
          p.note = p.note.at(at, p.reservedMark);
          offsets.put(p.tp, new OffsetAndMetadata(at, p.note.encode()));
          p.lastCommitted = at;
        }
      }
    } finally {
      lock.unlock();
    }
    if (offsets.isEmpty()) {
      return;
    }
    if (sync) {
      consumer.commitSync(offsets, Duration.ofSeconds(30));
    } else {
      consumer.commitAsync(
          offsets,
          (done, error) -> {
            if (error != null) {
              log.debug("kafka consumer {}: async commit failed: {}", groupId, error.toString());
              lock.lock();
              try {
                for (TopicPartition tp : offsets.keySet()) {
                  Part p = parts.get(tp);
                  if (p != null) {
                    p.lastCommitted = -1; // try again
                  }
                }
              } finally {
                lock.unlock();
              }
            }
          });
    }
  }

  private final class Rebalance implements ConsumerRebalanceListener {
    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> assigned) {
      if (assigned.isEmpty()) {
        return;
      }
      Map<TopicPartition, OffsetAndMetadata> committed;
      try {
        committed = consumer.committed(new HashSet<>(assigned), Duration.ofSeconds(30));
      } catch (RuntimeException e) {
        // without the notes records are not flagged redelivered; the inbox still decides
        log.warn("kafka consumer {}: committed offsets unreadable: {}", groupId, e.toString());
        committed = Map.of();
      }
      Map<TopicPartition, OffsetAndMetadata> rounds = new HashMap<>();
      List<Part> fresh = new ArrayList<>();
      for (TopicPartition tp : assigned) {
        OffsetAndMetadata c = committed.get(tp);
        OffsetNote note = c == null ? OffsetNote.NONE : OffsetNote.decode(c.metadata());
        long at = c == null ? -1 : c.offset();
        Part p = new Part(tp, at, note);
        if (c != null && note.mark() >= at) {
          // records from the committed offset to the mark may have been handed out before
          int round = note.roundOffset() == at ? note.round() + 1 : 1;
          p.note = new OffsetNote(note.mark(), at, round);
          p.redeliveredUpTo = note.mark();
          p.redeliveryCount = round + 1;
          rounds.put(tp, new OffsetAndMetadata(at, p.note.encode()));
        } else {
          p.redeliveredUpTo = -1;
        }
        fresh.add(p);
      }
      if (!rounds.isEmpty()) {
        try {
          consumer.commitSync(rounds, Duration.ofSeconds(30)); // the round counts before hand-out
        } catch (RuntimeException e) {
          log.warn("kafka consumer {}: round not committed: {}", groupId, e.toString());
        }
      }
      lock.lock();
      try {
        for (Part p : fresh) {
          parts.put(p.tp, p);
        }
        changed.signalAll();
      } finally {
        lock.unlock();
      }
      log.info("kafka consumer {}: assigned {}", groupId, assigned);
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> revoked) {
      if (revoked.isEmpty()) {
        return;
      }
      release(revoked, true);
      log.info("kafka consumer {}: revoked {}", groupId, revoked);
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> lost) {
      lostPartitions.addAndGet(lost.size());
      release(lost, false);
      log.warn("kafka consumer {}: lost {} (nothing committed for them)", groupId, lost);
    }
  }

  /**
   * Stops handing out records of these partitions; if {@code commit}, waits up to {@code
   * revokeTimeout} for the ones in flight and commits what was acknowledged, with the exact mark of
   * what was handed out. Then forgets them: a later acknowledgement is dropped.
   */
  private void release(Collection<TopicPartition> tps, boolean commit) {
    List<Part> leaving = new ArrayList<>();
    Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
    lock.lock();
    try {
      for (TopicPartition tp : tps) {
        Part p = parts.get(tp);
        if (p != null) {
          p.revoking = true;
          leaving.add(p);
        }
      }
      if (commit) {
        long deadline = System.nanoTime() + settings.revokeTimeout().toNanos();
        while (inFlight(leaving) && System.nanoTime() < deadline) {
          try {
            changed.awaitNanos(Math.min(deadline - System.nanoTime(), 50_000_000L));
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            break;
          }
        }
        for (Part p : leaving) {
          long at = p.committable();
          if (at >= 0) {
            p.note = p.note.at(at, handoverMark(p));
            offsets.put(p.tp, new OffsetAndMetadata(at, p.note.encode()));
          }
        }
      }
      for (Part p : leaving) {
        p.gone = true;
        openRecords -= p.open.size();
        parts.remove(p.tp);
      }
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    if (!offsets.isEmpty()) {
      try {
        consumer.commitSync(offsets, Duration.ofSeconds(30));
      } catch (RuntimeException e) {
        log.warn(
            "kafka consumer {}: commit on revoke failed ({}); the next owner gets those records"
                + " again",
            groupId,
            e.toString());
      }
    }
  }

  /**
   * The mark a clean handover commits: the highest open record the next owner must still flag
   * redelivered — one still in a worker's hands (it may hang on it), or one this owner had flagged
   * and not settled — and nothing above. The records this owner handed out and got back crashed
   * nothing (it is alive and committing), so the next owner need not suspect them of having crashed
   * a batch; after a crash the reserved mark stays, and flags them all.
   */
  private static long handoverMark(Part p) {
    long mark = -1;
    for (Rec r : p.open.values()) {
      if (r.owner != null || r.redelivered) {
        mark = Math.max(mark, r.offset);
      }
    }
    return mark;
  }

  private static boolean inFlight(List<Part> leaving) {
    for (Part p : leaving) {
      for (Rec r : p.open.values()) {
        if (r.owner != null) {
          return true;
        }
      }
    }
    return false;
  }

  private void shutDown() {
    try {
      if (consumer != null) {
        lock.lock();
        List<TopicPartition> all;
        try {
          all = new ArrayList<>(parts.keySet());
        } finally {
          lock.unlock();
        }
        try {
          release(all, true);
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
    lock.lock();
    try {
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    KafkaConsumer<byte[], byte[]> c = consumer;
    if (c != null) {
      c.wakeup();
    }
    try {
      poller.join(settings.revokeTimeout().toMillis() + 15_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  // ---------------------------------------------------------------- the receivers' side

  /** Up to {@code max} records {@code r} may have now, waiting at most {@code wait}. */
  List<Delivery> poll(KafkaReceiver r, int max, Duration wait) throws InterruptedException {
    long deadline = System.nanoTime() + wait.toNanos();
    lock.lockInterruptibly();
    try {
      while (true) {
        long[] nextDue = {Long.MAX_VALUE};
        List<Delivery> got = take(r, max, nextDue);
        long now = System.nanoTime();
        if (!got.isEmpty() || now >= deadline || !running || r.closed) {
          return got;
        }
        long until = Math.min(deadline, nextDue[0]);
        changed.awaitNanos(Math.max(1_000_000L, until - now));
      }
    } finally {
      lock.unlock();
    }
  }

  private List<Delivery> take(KafkaReceiver r, int max, long[] nextDue) {
    List<Delivery> out = new ArrayList<>();
    List<Part> order = new ArrayList<>(parts.values());
    if (order.isEmpty()) {
      return out;
    }
    int start = Math.floorMod(rotation.getAndIncrement(), order.size());
    long now = System.nanoTime();
    for (int i = 0; i < order.size() && out.size() < max; i++) {
      Part p = order.get((start + i) % order.size());
      if (p.revoking) {
        continue;
      }
      Set<String> blocked = new HashSet<>();
      for (Rec rec : p.open.values()) {
        if (out.size() >= max) {
          break;
        }
        String k = rec.key;
        if (k != null && blocked.contains(k)) {
          continue;
        }
        if (rec.owner != null) {
          if (rec.owner != r && k != null) {
            blocked.add(k); // the key is in another worker: its later records wait
          }
          continue;
        }
        if (rec.delayed && rec.dueNanos > now) {
          nextDue[0] = Math.min(nextDue[0], rec.dueNanos);
          if (k != null) {
            blocked.add(k); // waits for its retry; so do the key's later records
          }
          continue;
        }
        rec.delayed = false;
        rec.owner = r;
        r.held.add(rec);
        out.add(rec.delivery());
      }
    }
    return out;
  }

  void ack(KafkaReceiver r, List<Delivery> deliveries) {
    lock.lock();
    try {
      for (Delivery d : deliveries) {
        Rec rec = (Rec) d.handle();
        if (rec.owner != r || rec.part.gone) {
          continue; // revoked meanwhile, or already settled: the next owner sees it again
        }
        rec.owner = null;
        r.held.remove(rec);
        if (rec.part.open.remove(rec.offset) != null) {
          openRecords--;
        }
      }
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  void nack(KafkaReceiver r, List<Delivery> deliveries, Duration delay) {
    Duration capped =
        delay.compareTo(settings.maxNackDelay()) > 0 ? settings.maxNackDelay() : delay;
    lock.lock();
    try {
      long due = System.nanoTime() + Math.max(0, capped.toNanos());
      for (Delivery d : deliveries) {
        Rec rec = (Rec) d.handle();
        if (rec.owner != r || rec.part.gone) {
          continue;
        }
        rec.owner = null;
        r.held.remove(rec);
        rec.delayed = true;
        rec.dueNanos = due;
        rec.deliveries++;
        rec.redelivered = true;
      }
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** A receiver closed without settling: its records come back at once, as after a crash. */
  void closed(KafkaReceiver r) {
    lock.lock();
    try {
      for (Rec rec : r.held) {
        if (rec.owner == r && !rec.part.gone) {
          rec.owner = null;
          rec.deliveries++;
          rec.redelivered = true;
        }
      }
      r.held.clear();
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** One worker's receiver. */
  static final class KafkaReceiver implements Receiver {
    private final GroupConsumer group;
    final Set<Rec> held = new LinkedHashSet<>();
    volatile boolean closed;

    KafkaReceiver(GroupConsumer group) {
      this.group = group;
    }

    @Override
    public List<Delivery> poll(int max, Duration wait) throws InterruptedException {
      if (closed) {
        throw new IllegalStateException("receiver closed");
      }
      return group.poll(this, max, wait);
    }

    @Override
    public void ack(List<Delivery> deliveries) {
      group.ack(this, deliveries);
    }

    @Override
    public void nack(List<Delivery> deliveries, Duration delay) {
      group.nack(this, deliveries, delay);
    }

    @Override
    public void close() {
      if (!closed) {
        closed = true;
        group.closed(this);
      }
    }
  }
}
