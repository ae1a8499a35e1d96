package dev.once.example.warehouse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.once.Event;
import dev.once.spring.OnceLifecycle;
import dev.once.spring.OncePublisher;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/** Stopping the application while a handler is in the middle of an event. */
class LifecycleTest extends WarehouseTest {
  @Autowired OnceLifecycle lifecycle;
  @Autowired OncePublisher publisher;
  @Autowired PlatformTransactionManager transactionManager;
  @Autowired TestHandlers.Slow slow;

  @Test
  void stoppingDuringABatchLetsItCommitOrRollBackAndTheEventHasOneEffectAfterTheRestart()
      throws Exception {
    Event e = ExactlyOnceTest.orderPaid(System.currentTimeMillis() + 4_000_000, "slow-orders");
    String id = e.id().value();
    new TransactionTemplate(transactionManager).executeWithoutResult(s -> publisher.publish(e));
    assertThat(slow.entered.await(30, TimeUnit.SECONDS)).as("the handler started").isTrue();

    lifecycle.stop(); // interrupts the workers while the handler works
    long jobs = count("SELECT count(*) FROM dispatch_jobs WHERE event_id = ?", id);
    long markers =
        count("SELECT count(*) FROM once_inbox WHERE consumer_id = 'slow' AND event_id = ?", id);
    assertThat(jobs).as("the job and the marker committed together, or neither").isEqualTo(markers);
    assertThat(lifecycle.isRunning()).isFalse();

    lifecycle.start();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                count(
                        "SELECT count(*) FROM once_inbox WHERE consumer_id = 'slow' AND event_id = ?",
                        id)
                    == 1);
    assertThat(count("SELECT count(*) FROM dispatch_jobs WHERE event_id = ?", id))
        .as("dispatch jobs of " + id)
        .isEqualTo(1);
  }
}
