package dev.once.kafka.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one consumer does when the group moves partitions, on its poll thread. Assigned: reads each
 * partition's committed note, commits the redelivery round before anything is handed out, and opens
 * the partitions in the ledger. Revoked: nothing more is handed out from them, records in flight
 * get {@code revokeTimeout} to finish, then the offsets are committed and the partitions released.
 * Lost: dropped, nothing committed.
 */
final class Rebalance implements ConsumerRebalanceListener {
  private static final Logger log = LoggerFactory.getLogger(Rebalance.class);
  private static final Duration COMMIT_TIMEOUT = Duration.ofSeconds(30);

  private final String groupId;
  private final Consumer<byte[], byte[]> consumer;
  private final PartitionLedger ledger;
  private final Duration revokeTimeout;
  private final AtomicInteger lostPartitions;

  /**
   * @param lostPartitions counts the partitions this consumer lost (its session or poll interval
   *     expired)
   */
  Rebalance(
      String groupId,
      Consumer<byte[], byte[]> consumer,
      PartitionLedger ledger,
      Duration revokeTimeout,
      AtomicInteger lostPartitions) {
    this.groupId = groupId;
    this.consumer = consumer;
    this.ledger = ledger;
    this.revokeTimeout = revokeTimeout;
    this.lostPartitions = lostPartitions;
  }

  @Override
  public void onPartitionsAssigned(Collection<TopicPartition> assigned) {
    if (assigned.isEmpty()) {
      return;
    }
    Map<TopicPartition, OffsetAndMetadata> committed;
    try {
      committed = consumer.committed(new HashSet<>(assigned), COMMIT_TIMEOUT);
    } catch (RuntimeException e) {
      // without the notes records are not flagged redelivered; the inbox still decides
      log.warn("kafka consumer {}: committed offsets unreadable: {}", groupId, e.toString());
      committed = Map.of();
    }
    Map<TopicPartition, OffsetAndMetadata> rounds = new HashMap<>();
    List<PartitionState> fresh = new ArrayList<>();
    for (TopicPartition tp : assigned) {
      PartitionState p = PartitionState.assigned(tp, committed.get(tp));
      if (p.inRound()) {
        rounds.put(tp, p.withNote(p.lastCommitted));
      }
      fresh.add(p);
    }
    if (!rounds.isEmpty()) {
      try {
        consumer.commitSync(rounds, COMMIT_TIMEOUT); // the round counts before hand-out
      } catch (RuntimeException e) {
        log.warn("kafka consumer {}: round not committed: {}", groupId, e.toString());
      }
    }
    ledger.assigned(fresh);
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

  /**
   * Releases these partitions from the ledger; if {@code commit}, after their records in flight
   * finished (or {@code revokeTimeout} ran out), commits what was acknowledged, synchronously.
   */
  void release(Collection<TopicPartition> tps, boolean commit) {
    Map<TopicPartition, OffsetAndMetadata> offsets = ledger.release(tps, commit, revokeTimeout);
    if (!offsets.isEmpty()) {
      try {
        consumer.commitSync(offsets, COMMIT_TIMEOUT);
      } catch (RuntimeException e) {
        log.warn(
            "kafka consumer {}: commit on revoke failed ({}); the next owner gets those records"
                + " again",
            groupId,
            e.toString());
      }
    }
  }
}
