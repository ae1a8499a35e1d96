package dev.once.example.warehouse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.once.Event;
import dev.once.spring.OncePublisher;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A handler that writes through JPA and then throws: nothing of the failed attempt is committed (no
 * job, no marker), the event is retried, and the third attempt leaves exactly one job.
 */
class JpaRollbackTest extends WarehouseTest {
  private static final AtomicLong ORDER = new AtomicLong(System.currentTimeMillis());

  @Autowired OncePublisher publisher;
  @Autowired PlatformTransactionManager transactionManager;
  @Autowired TestHandlers.Flaky flaky;
  @Autowired TestHandlers.FlakyBroken flakyBroken;

  @Test
  void aHandlerThatWritesThroughJpaAndThrowsLeavesNothingIsRetriedAndThenHasOneEffect() {
    failedAttemptsLeaveNothing(flaky, "flaky", "flaky-orders");
  }

  @Test
  void theCheckCatchesAHandlerWhoseJpaWriteEscapesTheRollback() {
    assertThatThrownBy(
            () -> failedAttemptsLeaveNothing(flakyBroken, "flaky-broken", "flaky-broken-orders"))
        .isInstanceOf(AssertionError.class);
  }

  private void failedAttemptsLeaveNothing(
      TestHandlers.FlakyHandler handler, String consumer, String destination) {
    long n = ORDER.incrementAndGet();
    Event event = ExactlyOnceTest.orderPaid(n, destination);
    new TransactionTemplate(transactionManager).executeWithoutResult(s -> publisher.publish(event));
    String id = event.id().value();

    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                count(
                        "SELECT count(*) FROM once_inbox WHERE event_id = ? AND consumer_id = ?",
                        id,
                        consumer)
                    == 1);

    List<TestHandlers.Seen> seen = handler.seen.get(id);
    assertThat(seen)
        .as("what attempts 1, 2 and 3 found committed by the attempts before them")
        .containsExactly(
            new TestHandlers.Seen(1, 0, 0),
            new TestHandlers.Seen(2, 0, 0),
            new TestHandlers.Seen(3, 0, 0));
    assertThat(count("SELECT count(*) FROM dispatch_jobs WHERE event_id = ?", id))
        .as("dispatch jobs of " + id)
        .isEqualTo(1);
  }
}
