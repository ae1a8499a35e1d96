package dev.once.kafka.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.once.Event;
import dev.once.EventId;
import dev.once.spi.Delivery;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * The consumer's bookkeeping without a broker: hand-out per key, committable offsets, nacks on a
 * moved clock, closed receivers, taken-over partitions, reservations and releases.
 */
class PartitionLedgerTest {
  private static final TopicPartition P0 = new TopicPartition("orders", 0);
  private static final TopicPartition P1 = new TopicPartition("orders", 1);

  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private final PartitionLedger ledger = new PartitionLedger(Duration.ofSeconds(30), now::get);

  /** Record {@code offset} of key {@code key}. */
  private static PartitionLedger.Polled rec(long offset, String key) {
    Event e = Event.of(EventId.of("ledger", offset), "orders", key, "T", "{}");
    return new PartitionLedger.Polled(offset, new Delivery(e, 1, false, null));
  }

  private static Map<TopicPartition, List<PartitionLedger.Polled>> batch(
      TopicPartition tp, PartitionLedger.Polled... records) {
    Map<TopicPartition, List<PartitionLedger.Polled>> b = new LinkedHashMap<>();
    b.put(tp, List.of(records));
    return b;
  }

  /** Assigns {@code tp} as a fresh partition (nothing committed before). */
  private void assign(TopicPartition tp) {
    ledger.assigned(List.of(PartitionState.assigned(tp, null)));
  }

  private List<Delivery> poll(KafkaReceiver r, int max) throws InterruptedException {
    return ledger.poll(r, max, Duration.ZERO);
  }

  private static List<Long> offsets(List<Delivery> ds) {
    return ds.stream().map(d -> ((OpenRecord) d.handle()).offset).toList();
  }

  private long committable(TopicPartition tp) {
    OffsetAndMetadata o = ledger.toCommit().get(tp);
    return o == null ? -1 : o.offset();
  }

  @Test
  void aKeyIsInOneReceiverAtATimeWhileTheOtherKeysOfThePartitionGoToOtherWorkers()
      throws Exception {
    assign(P0);
    ledger.add(batch(P0, rec(0, "a"), rec(1, "a"), rec(2, "b"), rec(3, null)));
    KafkaReceiver r1 = new KafkaReceiver(ledger, () -> {});
    KafkaReceiver r2 = new KafkaReceiver(ledger, () -> {});
    List<Delivery> a0 = poll(r1, 1);
    assertThat(offsets(a0)).containsExactly(0L);
    assertThat(offsets(poll(r2, 10))).as("a@1 waits for a@0").containsExactly(2L, 3L);
    assertThat(poll(r2, 10)).isEmpty();
    r1.ack(a0);
    assertThat(offsets(poll(r2, 10))).as("a@1 once a@0 is done").containsExactly(1L);
  }

  @Test
  void unorderedOneReceiverTakesSeveralRecordsOfAKeyInOneBatch() throws Exception {
    assign(P0);
    ledger.add(batch(P0, rec(0, "a"), rec(1, "a"), rec(2, "b")));
    KafkaReceiver r = new KafkaReceiver(ledger, () -> {});
    assertThat(offsets(poll(r, 10))).containsExactly(0L, 1L, 2L);
  }

  @Test
  void inKeyOrderAKeysNextRecordGoesOutOnlyAfterTheOneBeforeItWasAcknowledged() throws Exception {
    ledger.inKeyOrder();
    assign(P0);
    ledger.add(batch(P0, rec(0, "a"), rec(1, "a"), rec(2, "b"), rec(3, "a"), rec(4, null)));
    KafkaReceiver r1 = new KafkaReceiver(ledger, () -> {});
    KafkaReceiver r2 = new KafkaReceiver(ledger, () -> {});
    List<Delivery> first = poll(r1, 10);
    assertThat(offsets(first))
        .as("one record per key, keyless ones all")
        .containsExactly(0L, 2L, 4L);
    assertThat(poll(r1, 10)).as("not even to the receiver holding a@0").isEmpty();
    assertThat(poll(r2, 10)).isEmpty();
    r1.ack(List.of(first.get(1), first.get(2)));
    assertThat(poll(r2, 10)).as("b and the keyless record settled: a@1 still waits").isEmpty();
    assertThat(committable(P0)).as("below the lowest unsettled record, a@0").isEqualTo(0);
    r1.ack(List.of(first.get(0)));
    List<Delivery> second = poll(r2, 10);
    assertThat(offsets(second)).containsExactly(1L);
    assertThat(committable(P0)).as("b@2 and x@4 settled, a@1 open").isEqualTo(1);
    r2.ack(second);
    assertThat(offsets(poll(r1, 10))).containsExactly(3L);
  }

  @Test
  void inKeyOrderANackedRecordKeepsItsPlaceWhileTheOtherKeysFlow() throws Exception {
    ledger.inKeyOrder();
    assign(P0);
    ledger.add(batch(P0, rec(0, "a"), rec(1, "b"), rec(2, "a"), rec(3, "b"), rec(4, "b")));
    KafkaReceiver r = new KafkaReceiver(ledger, () -> {});
    List<Delivery> first = poll(r, 10);
    assertThat(offsets(first)).containsExactly(0L, 1L);
    r.nack(List.of(first.get(0)), Duration.ofSeconds(10));
    r.ack(List.of(first.get(1)));
    for (long b = 3; b <= 4; b++) {
      List<Delivery> next = poll(r, 10);
      assertThat(offsets(next))
          .as("b flows while a@0 waits; a@2 stays behind it")
          .containsExactly(b);
      r.ack(next);
    }
    assertThat(poll(r, 10)).isEmpty();
    assertThat(committable(P0)).as("a@0 unsettled holds the commit").isEqualTo(0);
    now.addAndGet(Duration.ofSeconds(10).toNanos());
    List<Delivery> retried = poll(r, 10);
    assertThat(offsets(retried)).as("the retry first, alone").containsExactly(0L);
    r.ack(retried);
    assertThat(offsets(poll(r, 10))).containsExactly(2L);
    assertThat(committable(P0)).isEqualTo(2);
  }

  @Test
  void inKeyOrderAClosedReceiversRecordComesBackStillFirstOfItsKey() throws Exception {
    ledger.inKeyOrder();
    assign(P0);
    ledger.add(batch(P0, rec(0, "a"), rec(1, "a")));
    KafkaReceiver crashed = new KafkaReceiver(ledger, () -> {});
    assertThat(offsets(poll(crashed, 10))).containsExactly(0L);
    crashed.close();
    KafkaReceiver next = new KafkaReceiver(ledger, () -> {});
    List<Delivery> again = poll(next, 10);
    assertThat(offsets(again)).containsExactly(0L);
    assertThat(again.get(0).redelivered()).isTrue();
  }

  @Test
  void theCommittableOffsetIsTheLowestUnacknowledgedAndOnlyAMoveIsCommitted() throws Exception {
    assign(P0);
    ledger.add(batch(P0, rec(0, "a"), rec(1, "b"), rec(2, "c"), rec(3, "d"), rec(4, "e")));
    KafkaReceiver r = new KafkaReceiver(ledger, () -> {});
    List<Delivery> got = poll(r, 5);
    assertThat(committable(P0)).isEqualTo(0);
    r.ack(List.of(got.get(1), got.get(2), got.get(4)));
    assertThat(ledger.toCommit()).as("0 is still open: nothing moved").isEmpty();
    r.ack(List.of(got.get(0)));
    assertThat(committable(P0)).isEqualTo(3);
    r.ack(List.of(got.get(3)));
    assertThat(committable(P0)).as("everything polled is done").isEqualTo(5);
    assertThat(ledger.openRecords()).isZero();
  }

  @Test
  void anAsynchronousCommitThatFailedIsTriedAgain() throws Exception {
    assign(P0);
    ledger.add(batch(P0, rec(0, "a")));
    KafkaReceiver r = new KafkaReceiver(ledger, () -> {});
    r.ack(poll(r, 1));
    assertThat(committable(P0)).isEqualTo(1);
    assertThat(ledger.toCommit()).isEmpty();
    ledger.commitFailed(List.of(P0));
    assertThat(committable(P0)).isEqualTo(1);
  }

  @Test
  void aNackedRecordComesBackAfterItsDelayCountedUpAndHoldsBackItsKeyMeanwhile() throws Exception {
    assign(P0);
    ledger.add(batch(P0, rec(0, "a"), rec(1, "a"), rec(2, "b")));
    KafkaReceiver r = new KafkaReceiver(ledger, () -> {});
    List<Delivery> first = poll(r, 1);
    r.nack(first, Duration.ofSeconds(10));
    assertThat(offsets(poll(r, 10))).as("only the other key").containsExactly(2L);
    now.addAndGet(Duration.ofSeconds(9).toNanos());
    assertThat(poll(r, 10)).isEmpty();
    now.addAndGet(Duration.ofSeconds(1).toNanos());
    List<Delivery> again = poll(r, 1);
    assertThat(offsets(again)).containsExactly(0L);
    assertThat(again.get(0).deliveryCount()).isEqualTo(2);
    assertThat(again.get(0).redelivered()).isTrue();
  }

  @Test
  void aNackDelayIsCappedAtMaxNackDelay() throws Exception {
    assign(P0);
    ledger.add(batch(P0, rec(0, "a")));
    KafkaReceiver r = new KafkaReceiver(ledger, () -> {});
    r.nack(poll(r, 1), Duration.ofHours(1));
    now.addAndGet(Duration.ofSeconds(30).toNanos());
    assertThat(offsets(poll(r, 1))).containsExactly(0L);
  }

  @Test
  void aClosedReceiversRecordsComeBackAtOnceFlaggedRedeliveredToAnotherReceiver() throws Exception {
    assign(P0);
    ledger.add(batch(P0, rec(0, "a"), rec(1, "b")));
    KafkaReceiver crashed = new KafkaReceiver(ledger, () -> {});
    assertThat(poll(crashed, 2)).hasSize(2);
    crashed.close();
    List<Delivery> again = poll(new KafkaReceiver(ledger, () -> {}), 10);
    assertThat(offsets(again)).containsExactly(0L, 1L);
    assertThat(again).allSatisfy(d -> assertThat(d.deliveryCount()).isEqualTo(2));
    assertThat(again).allMatch(Delivery::redelivered);
  }

  @Test
  void releasedRecordsComeBackUnflaggedAndAHandoverDoesNotFlagThemForTheNextOwner()
      throws Exception {
    assign(P0);
    ledger.add(batch(P0, rec(0, "a"), rec(1, "b")));
    KafkaReceiver stopped = new KafkaReceiver(ledger, () -> {});
    stopped.release(poll(stopped, 2)); // a stop or another delivery's crash: unrun
    stopped.close();
    List<Delivery> again = poll(new KafkaReceiver(ledger, () -> {}), 10);
    assertThat(offsets(again)).containsExactly(0L, 1L);
    assertThat(again).noneMatch(Delivery::redelivered);
    assertThat(again).allSatisfy(d -> assertThat(d.deliveryCount()).isEqualTo(1));
    ((OpenRecord) again.get(0).handle()).owner.release(again); // back again, then handed over
    OffsetAndMetadata handover = ledger.release(List.of(P0), true, Duration.ZERO).get(P0);
    assertThat(PartitionState.assigned(P0, handover).inRound())
        .as("the next owner flags nothing")
        .isFalse();
  }

  @Test
  void aPartitionTakenOverWithItsMarkPastTheCommittedOffsetHandsOutUpToTheMarkRedelivered()
      throws Exception {
    // the previous owner committed offset 5 and had reserved up to 7 (its note)
    OffsetAndMetadata committed = new OffsetAndMetadata(5, new OffsetNote(7, 5, 0).encode());
    PartitionState p = PartitionState.assigned(P0, committed);
    assertThat(p.inRound()).isTrue();
    assertThat(OffsetNote.decode(p.withNote(5).metadata()))
        .as("the round, committed before hand-out")
        .isEqualTo(new OffsetNote(7, 5, 1));
    ledger.assigned(List.of(p));
    ledger.add(batch(P0, rec(5, "a"), rec(6, "b"), rec(7, "c"), rec(8, "d")));
    List<Delivery> got = poll(new KafkaReceiver(ledger, () -> {}), 10);
    assertThat(got).extracting(Delivery::redelivered).containsExactly(true, true, true, false);
    assertThat(got).extracting(Delivery::deliveryCount).containsExactly(2, 2, 2, 1);
  }

  @Test
  void eachTakeOverAtTheSameCommittedOffsetCountsOneRoundMoreAndAMovedOffsetStartsAgain() {
    OffsetNote second = new OffsetNote(7, 5, 1);
    PartitionState again = PartitionState.assigned(P0, new OffsetAndMetadata(5, second.encode()));
    assertThat(again.redeliveryCount).as("a record that killed two owners").isEqualTo(3);
    PartitionState moved = PartitionState.assigned(P0, new OffsetAndMetadata(6, second.encode()));
    assertThat(moved.redeliveryCount).isEqualTo(2);
    PartitionState past = PartitionState.assigned(P0, new OffsetAndMetadata(8, second.encode()));
    assertThat(past.inRound()).as("everything up to the mark was committed").isFalse();
    assertThat(PartitionState.assigned(P0, null).inRound()).isFalse();
    assertThat(PartitionState.assigned(P0, new OffsetAndMetadata(3, "not ours")).inRound())
        .isFalse();
  }

  @Test
  void theNoteReservesAheadOfWhatIsPolledAndOnlyWhenAPollPassesTheMark() {
    assign(P0);
    Map<TopicPartition, OffsetAndMetadata> first = ledger.reserve(batch(P0, rec(0, "a")));
    assertThat(first.get(P0).offset()).as("nothing committable yet: the first polled").isZero();
    assertThat(OffsetNote.decode(first.get(P0).metadata()).mark())
        .isEqualTo(PartitionState.RESERVE);
    ledger.committed(first);
    ledger.add(batch(P0, rec(0, "a")));
    assertThat(ledger.reserve(batch(P0, rec(PartitionState.RESERVE, "b"))))
        .as("covered by the mark")
        .isEmpty();
    Map<TopicPartition, OffsetAndMetadata> next =
        ledger.reserve(batch(P0, rec(PartitionState.RESERVE + 1, "b")));
    assertThat(next.get(P0).offset()).as("at the lowest open record").isZero();
    assertThat(OffsetNote.decode(next.get(P0).metadata()).mark())
        .isEqualTo(2 * PartitionState.RESERVE + 1);
  }

  @Test
  void recordsOfAPartitionThatIsNotOursAreGivenBackToSeekAndNeverHandedOut() throws Exception {
    assign(P0);
    Map<TopicPartition, List<PartitionLedger.Polled>> b = batch(P0, rec(3, "a"));
    b.put(P1, List.of(rec(7, "b"), rec(8, "c")));
    assertThat(ledger.add(b)).containsExactly(Map.entry(P1, 7L));
    assertThat(offsets(poll(new KafkaReceiver(ledger, () -> {}), 10))).containsExactly(3L);
  }

  @Test
  void aReplayForAnotherGroupIsNeverHandedOutAndItsOffsetIsCommittedWithTheNext() throws Exception {
    assign(P0);
    ledger.add(batch(P0, rec(0, "a"), new PartitionLedger.Polled(1, null)));
    KafkaReceiver r = new KafkaReceiver(ledger, () -> {});
    List<Delivery> got = poll(r, 10);
    assertThat(offsets(got)).containsExactly(0L);
    r.ack(got);
    assertThat(committable(P0)).isEqualTo(2);
  }

  @Test
  void aPartitionLostHandsOutNothingMoreAndDropsALateAcknowledgement() throws Exception {
    assign(P0);
    ledger.add(batch(P0, rec(0, "a"), rec(1, "b")));
    KafkaReceiver r = new KafkaReceiver(ledger, () -> {});
    List<Delivery> held = poll(r, 1);
    assertThat(ledger.release(List.of(P0), false, Duration.ofSeconds(5))).isEmpty();
    assertThat(ledger.openRecords()).isZero();
    assertThat(ledger.assignedPartitions()).isZero();
    r.ack(held); // too late: the partition is gone
    assertThat(poll(r, 10)).isEmpty();
    assertThat(ledger.toCommit()).isEmpty();
  }

  @Test
  void aRevokedPartitionWaitsForItsRecordsInFlightThenCommitsWithAMarkThatFlagsNothingSettled()
      throws Exception {
    assign(P0);
    ledger.add(batch(P0, rec(0, "a"), rec(1, "b"), rec(2, "c")));
    KafkaReceiver r = new KafkaReceiver(ledger, () -> {});
    List<Delivery> held = poll(r, 2); // 0 and 1 in a worker, 2 never handed out
    CompletableFuture<Map<TopicPartition, OffsetAndMetadata>> released =
        CompletableFuture.supplyAsync(() -> ledger.release(List.of(P0), true, Duration.ofDays(1)));
    awaitWaitingIn("awaitSettled");
    assertThat(released).as("waits while a worker holds records").isNotDone();
    assertThat(poll(new KafkaReceiver(ledger, () -> {}), 10))
        .as("hands out nothing more")
        .isEmpty();
    r.ack(held);
    OffsetAndMetadata o = released.get(10, TimeUnit.SECONDS).get(P0);
    assertThat(o.offset()).isEqualTo(2);
    // 0 and 1 were settled, 2 never handed out: the next owner need not suspect any of them
    assertThat(OffsetNote.decode(o.metadata()).mark()).as("nothing flagged").isLessThan(2);
  }

  @Test
  void aRevokedPartitionWhoseWorkerIsTooSlowIsReleasedAfterTheWaitWithoutItsRecords()
      throws Exception {
    PartitionLedger real = new PartitionLedger(Duration.ofSeconds(30), System::nanoTime);
    real.assigned(List.of(PartitionState.assigned(P0, null)));
    real.add(batch(P0, rec(0, "a")));
    KafkaReceiver slow = new KafkaReceiver(real, () -> {});
    assertThat(real.poll(slow, 1, Duration.ZERO)).hasSize(1);
    long t0 = System.nanoTime();
    Map<TopicPartition, OffsetAndMetadata> released =
        real.release(List.of(P0), true, Duration.ofMillis(300));
    assertThat(Duration.ofNanos(System.nanoTime() - t0))
        .isGreaterThanOrEqualTo(Duration.ofMillis(300));
    assertThat(released.get(P0).offset()).as("the slow worker's record stays uncommitted").isZero();
    assertThat(OffsetNote.decode(released.get(P0).metadata()).mark())
        .as("still in a worker's hands: the next owner gets it flagged redelivered")
        .isZero();
    assertThat(real.assignedPartitions()).isZero();
  }

  @Test
  void aWaitingReceiverWakesWhenRecordsArriveAndWhenTheConsumerStops() throws Exception {
    PartitionLedger real = new PartitionLedger(Duration.ofSeconds(30), System::nanoTime);
    real.assigned(List.of(PartitionState.assigned(P0, null)));
    KafkaReceiver r = new KafkaReceiver(real, () -> {});
    CompletableFuture<List<Delivery>> waiting =
        CompletableFuture.supplyAsync(() -> pollQuietly(real, r, Duration.ofDays(1)));
    awaitWaitingIn("poll");
    real.add(batch(P0, rec(0, "a")));
    assertThat(waiting.get(10, TimeUnit.SECONDS)).hasSize(1);
    CompletableFuture<List<Delivery>> stopped =
        CompletableFuture.supplyAsync(() -> pollQuietly(real, r, Duration.ofDays(1)));
    awaitWaitingIn("poll");
    real.stop();
    assertThat(stopped.get(10, TimeUnit.SECONDS)).isEmpty();
  }

  /**
   * Until a thread (the one the test started) waits for a change of the ledger, on its condition in
   * {@code PartitionLedger.<method>}: seen there, not slept for.
   */
  private static void awaitWaitingIn(String method) {
    await()
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(1))
        .until(
            () ->
                Thread.getAllStackTraces().values().stream()
                    .anyMatch(
                        frames ->
                            Arrays.stream(frames)
                                    .anyMatch(f -> f.getMethodName().startsWith("await"))
                                && Arrays.stream(frames)
                                    .anyMatch(
                                        f ->
                                            f.getClassName().equals(PartitionLedger.class.getName())
                                                && f.getMethodName().equals(method))));
  }

  private static List<Delivery> pollQuietly(PartitionLedger l, KafkaReceiver r, Duration wait) {
    try {
      return l.poll(r, 10, wait);
    } catch (InterruptedException e) {
      throw new IllegalStateException(e);
    }
  }
}
