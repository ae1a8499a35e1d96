package dev.once.rabbitmq.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.spi.PublishResult;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The broker's answers for one batch, as the connection's thread reports them: which messages are
 * confirmed, refused, unroutable or lost; and what keeping them costs a batch of one, the relay's
 * batch at a paced rate.
 */
class BatchConfirmsTest {
  private static final Duration NOW = Duration.ofMillis(1);

  @Test
  void aMultipleAckConfirmsEverythingUpToItsSequenceNumber() throws Exception {
    BatchConfirms b = sent(4, 10);
    b.acked(12, true);
    b.acked(13, false);
    PublishResult r = b.await(NOW, 4);
    assertThat(r.confirmed().cardinality()).isEqualTo(4);
    assertThat(r.failures()).isEmpty();
    assertThat(b.timedOut()).isFalse();
  }

  @Test
  void aNackRefusesAndAnUnansweredMessageIsLost() throws Exception {
    BatchConfirms b = sent(3, 1);
    b.nacked(2, false);
    b.acked(1, false);
    PublishResult r = b.await(NOW, 3);
    assertThat(r.isConfirmed(0)).isTrue();
    assertThat(r.isRefused(1)).isTrue();
    assertThat(r.isLost(2)).isTrue();
    assertThat(b.timedOut()).isTrue();
  }

  @Test
  void aReturnedMessageIsNotConfirmedByItsAck() throws Exception {
    BatchConfirms b = sent(2, 5);
    b.returned("m1", 312, "NO_ROUTE");
    b.acked(6, true);
    PublishResult r = b.await(NOW, 2);
    assertThat(r.isConfirmed(0)).isTrue();
    assertThat(r.isConfirmed(1)).isFalse();
    assertThat(r.isUnroutable(1)).isTrue();
  }

  @Test
  void aLostChannelLosesWhatIsUnansweredAndABrokerCloseRefusesIt() throws Exception {
    BatchConfirms lost = sent(2, 1);
    lost.acked(1, false);
    lost.channelLost("connection reset", false);
    PublishResult r = lost.await(NOW, 2);
    assertThat(r.isConfirmed(0)).isTrue();
    assertThat(r.isLost(1)).isTrue();

    BatchConfirms refused = sent(1, 1);
    refused.channelLost("404 NOT_FOUND", true);
    assertThat(refused.await(NOW, 1).isRefused(0)).isTrue();
  }

  /**
   * A batch of one, sent, acked and awaited, after a warm-up: a tree map, two hash maps, a list per
   * message and the lists of each answer took 1 408 bytes; a few arrays of the batch's size, and no
   * failure map nor lost and unroutable sets while nothing failed, take 512. The bound is generous:
   * the count of a code path, not of the machine's load.
   */
  @Test
  void aBatchOfOneKeepsItsAnswersInLittleMemory() throws Exception {
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long me = Thread.currentThread().getId();
    int warm = 20_000;
    int rounds = 20_000;
    long bytes = 0;
    for (int i = 0; i < warm + rounds; i++) {
      long before = threads.getThreadAllocatedBytes(me);
      BatchConfirms b = new BatchConfirms(1);
      b.sent(i, 0, "m0");
      b.acked(i, true);
      PublishResult r = b.await(NOW, 1);
      long after = threads.getThreadAllocatedBytes(me);
      assertThat(r.isConfirmed(0)).isTrue();
      if (i >= warm) {
        bytes += after - before;
      }
    }
    assertThat(bytes / rounds).as("bytes per batch of one").isLessThan(800);
  }

  /** A batch of {@code n} messages m0… sent with sequence numbers from {@code first}. */
  private static BatchConfirms sent(int n, long first) {
    BatchConfirms b = new BatchConfirms(n);
    for (int i = 0; i < n; i++) {
      b.sent(first + i, i, "m" + i);
    }
    return b;
  }
}
