package dev.once.sqs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.once.Consumer;
import dev.once.Event;
import dev.once.EventId;
import dev.once.Once;
import dev.once.Relay;
import dev.once.spi.ForwardingTransport;
import dev.once.spi.PublishResult;
import dev.once.spi.QueueAdmin;
import dev.once.spi.Transport;
import dev.once.test.TestDatabase;
import dev.once.testkit.TcpProxy;
import java.time.Duration;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * SQS refusing connections under a live relay and consumer, then back: the {@link TcpProxy} in
 * front of ElasticMQ resets every connection and closes its port ({@link TcpProxy#refuse()}), so
 * every send, receive, delete and visibility renewal fails at once with a refused connection, until
 * the port listens again ({@link TcpProxy#restore()}). ElasticMQ itself is never stopped. Events
 * are committed before, during and after the refusal; the same process, never restarted, ends with
 * every event's effect and marker exactly once, none dead-lettered, the outbox sent and the queue
 * empty. {@link #aRelayThatTakesARefusedSendForConfirmedLosesEvents} is the broken twin: the same
 * run with a relay whose transport reports a refused send as confirmed loses events, so the counts
 * here are what catches such a relay.
 */
class RefusedEndpointTest {
  private static final int PER_PHASE = 60;
  private static final int EVENTS = 3 * PER_PHASE;
  private static final Duration BOUND = Duration.ofSeconds(120);
  private TestDatabase db;
  private TcpProxy proxy;
  private Transport transport;

  /** Standard queues here; FIFO in the subclass. */
  SqsTransport.Builder configure(SqsTransport.Builder b) {
    return b;
  }

  @BeforeEach
  void open() {
    db = TestDatabase.embedded();
    db.execute("CREATE TABLE refused_effects (event_id varchar(200) NOT NULL)");
    proxy = Sqs.proxy();
    transport =
        Sqs.through(
            proxy,
            configure(Sqs.transport())
                .visibilityTimeout(Duration.ofSeconds(2))
                .requestTimeout(Duration.ofSeconds(10)));
  }

  @AfterEach
  void close() {
    transport.close(); // closes the proxy too
    db.close();
  }

  @Test
  void aRefusedEndpointThatComesBackEndsInEveryEventProcessedOnce() {
    Run run = runThroughARefusal(t -> t);

    assertThat(run.lostWhileRefused()).as("sends the refusal failed").isPositive();
    assertThat(run.effects()).isEqualTo(EVENTS);
    assertThat(run.distinctEffects()).isEqualTo(EVENTS);
    assertThat(run.markers()).isEqualTo(EVENTS);
    assertThat(run.deadLetters()).isZero();
  }

  /** The broken twin: a relay that drops the rows whose send was refused. */
  @Test
  void aRelayThatTakesARefusedSendForConfirmedLosesEvents() {
    Run run = runThroughARefusal(DroppingLostSends::new);

    assertThat(run.lostWhileRefused()).isPositive();
    assertThat(run.effects()).isLessThan(EVENTS);
    assertThat(run.markers()).isEqualTo(run.effects());
  }

  /**
   * A third of the events committed and flowing, then the endpoint refuses while the second third
   * is committed, for at least two visibility timeouts and until at least one send failed on it;
   * then it is back, the last third is committed, and the run waits (bounded) until the outbox is
   * sent and the queue holds nothing, visible or in flight: nothing is left to come.
   */
  private Run runThroughARefusal(UnaryOperator<Transport> relayTransport) {
    String dest = "refused-" + System.nanoTime();
    RefusalWatch watch = new RefusalWatch(transport);
    try (Once once =
            Once.builder()
                .dataSource(db.dataSource())
                .transport(relayTransport.apply(watch))
                .destinations(dest)
                .relayIdleWait(Duration.ofMillis(100))
                .confirmTimeout(Duration.ofSeconds(5))
                .build();
        Consumer consumer =
            once.consumer("g")
                .subscribe(
                    dest,
                    (tx, e) -> tx.update("INSERT INTO refused_effects VALUES (?)", e.id().value()))
                .workers(2)
                .idleWait(Duration.ofMillis(200))
                .build()
                .start();
        Relay relay = once.newRelay()) {
      relay.start();
      commit(once, dest, 0);
      await().atMost(BOUND).until(() -> effects() > 0); // the pipeline runs

      watch.refusing.set(true);
      int reset = proxy.refuse(); // every connection reset, every new one refused
      long refusedAt = System.nanoTime();
      commit(once, dest, PER_PHASE);
      await("a refusal of two visibility timeouts in which a send failed")
          .atMost(BOUND)
          .until(
              () ->
                  watch.lostWhileRefused.get() > 0
                      && System.nanoTime() - refusedAt > Duration.ofSeconds(4).toNanos());
      watch.refusing.set(false);
      proxy.restore();

      commit(once, dest, 2 * PER_PHASE);
      QueueAdmin admin = transport.capability(QueueAdmin.class).orElseThrow();
      await("the outbox sent and the queue empty")
          .atMost(BOUND)
          .until(() -> unsent(dest) == 0 && admin.depth(dest, "g").orElseThrow() == 0);
      System.out.printf(
          "RefusedEndpointTest: %d connections reset, %d sends lost while refused%n",
          reset, watch.lostWhileRefused.get());
    }
    return new Run(
        watch.lostWhileRefused.get(),
        effects(),
        db.count("SELECT count(DISTINCT event_id) FROM refused_effects"),
        db.count("SELECT count(*) FROM once_inbox WHERE consumer_id = 'g'"),
        db.count("SELECT count(*) FROM once_dead_letter WHERE destination = ?", dest));
  }

  private record Run(
      int lostWhileRefused, long effects, long distinctEffects, long markers, long deadLetters) {}

  private static void commit(Once once, String dest, int from) {
    for (int i = from; i < from + PER_PHASE; i += 20) {
      int first = i;
      once.useTransaction(
          tx -> {
            for (int j = first; j < first + 20; j++) {
              tx.publish(Event.of(EventId.of("paid", j), dest, "k" + (j % 7), "T", "{}"));
            }
          });
    }
  }

  private long effects() {
    return db.count("SELECT count(*) FROM refused_effects");
  }

  private long unsent(String dest) {
    return db.count(
        "SELECT count(*) FROM once_outbox WHERE destination = ? AND sent_at IS NULL", dest);
  }

  /**
   * Counts the relay's sends that were lost in a publish call begun and ended while the endpoint
   * refused: begun after the proxy's port closed and its connections were reset, such a send cannot
   * have reached SQS.
   */
  private static final class RefusalWatch extends ForwardingTransport {
    final AtomicBoolean refusing = new AtomicBoolean();
    final AtomicInteger lostWhileRefused = new AtomicInteger();

    RefusalWatch(Transport delegate) {
      super(delegate);
    }

    @Override
    public PublishResult publish(List<Event> batch, Duration confirmTimeout) {
      boolean before = refusing.get();
      PublishResult r = super.publish(batch, confirmTimeout);
      if (before && refusing.get()) {
        lostWhileRefused.addAndGet(r.lost().cardinality());
      }
      return r;
    }

    @Override
    public void close() {} // the test closes the transport
  }

  /** Broken on purpose: a lost send is reported confirmed, so the relay marks its row sent. */
  private static final class DroppingLostSends extends ForwardingTransport {
    DroppingLostSends(Transport delegate) {
      super(delegate);
    }

    @Override
    public PublishResult publish(List<Event> batch, Duration confirmTimeout) {
      PublishResult r = super.publish(batch, confirmTimeout);
      BitSet confirmed = r.confirmed();
      confirmed.or(r.lost());
      Map<Integer, String> failures = new HashMap<>(r.failures());
      r.lost().stream().forEach(failures::remove);
      return new PublishResult(confirmed, failures, new BitSet(), r.unroutable());
    }
  }
}
