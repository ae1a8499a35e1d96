package dev.once.tracing;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.once.Consumer;
import dev.once.DeadLetterFilter;
import dev.once.Event;
import dev.once.EventId;
import dev.once.Once;
import dev.once.OnceListener;
import dev.once.RetryPolicy;
import dev.once.Tracing;
import dev.once.spi.Transport;
import dev.once.test.TestDatabase;
import dev.once.testkit.CrashPoint;
import dev.once.testkit.FaultInjector;
import dev.once.testkit.SimulatedCrash;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * One trace from the producer's transaction to the last effect, on every transport: orders →
 * warehouse → notifier. A subclass per transport gives a fresh transport on the test's database.
 */
abstract class TracePipelineContract {
  static final AttributeKey<String> OUTCOME = AttributeKey.stringKey(ObservationTracing.OUTCOME);
  static final AttributeKey<String> MESSAGE_ID = AttributeKey.stringKey("messaging.message.id");
  static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");

  /** A fresh transport (its own queues/topics) over {@code ds}. */
  abstract Transport transport(DataSource ds) throws Exception;

  private static final AtomicInteger TESTS = new AtomicInteger();

  /** This test's destinations: a broker's queues and topics outlive a test. */
  final String orders = "orders" + TESTS.incrementAndGet();

  final String dispatch = "dispatch" + TESTS.get();

  TestDatabase db;
  Transport transport;
  OtelTracing otel;
  Once once;
  final List<String> effects = Collections.synchronizedList(new ArrayList<>());
  final List<Consumer> consumers = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    db = TestDatabase.embedded();
    transport = transport(db.dataSource());
    otel = new OtelTracing();
  }

  Once once(OnceListener... listeners) {
    var b =
        Once.builder()
            .dataSource(db.dataSource())
            .transport(transport)
            .destinations(orders, dispatch)
            .tracing(otel.tracing);
    for (OnceListener l : listeners) {
      b.listener(l);
    }
    once = b.build();
    return once;
  }

  final ListAppender<ILoggingEvent> deadLetterLines = new ListAppender<>();

  @AfterEach
  void stop() throws Exception {
    ((Logger) LoggerFactory.getLogger("dev.once.internal.consumer.DeliveryRunner"))
        .detachAppender(deadLetterLines);
    for (Consumer c : consumers) {
      c.close();
    }
    if (once != null) {
      once.close();
    }
    transport.close();
    db.close();
  }

  /** The warehouse (orders → dispatch) and the notifier (dispatch → an effect). */
  void pipeline(RetryPolicy notifierRetry, AtomicBoolean notifierFails) {
    consumers.add(
        once.consumer("warehouse")
            .subscribe(
                orders,
                (tx, e) ->
                    tx.publish(
                        e.follow("dispatch-queued")
                            .destination(dispatch)
                            .type("DispatchQueued")
                            .payload("{}")
                            .build()))
            .idleWait(Duration.ofMillis(50))
            .build());
    consumers.add(
        once.consumer("notifier")
            .subscribe(
                dispatch,
                (tx, e) -> {
                  if (notifierFails.get()) {
                    throw new IllegalStateException("mail server says no to {secret payload}");
                  }
                  effects.add(e.id().value());
                })
            .retry(notifierRetry)
            .idleWait(Duration.ofMillis(50))
            .build());
  }

  void placeOrder(long id, Map<String, String> headers) {
    once.inTransaction(
        tx ->
            tx.publish(
                Event.builder()
                    .id(EventId.of("order-placed", id))
                    .destination(orders)
                    .key(id)
                    .type("OrderPlaced")
                    .payload("{\"card\":\"4111\"}")
                    .build()
                    .withHeaders(headers)));
  }

  /** Runs the relay and the consumers until {@code done}. */
  void runUntil(BooleanSupplier done) {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    var relay = once.newRelay();
    while (!done.getAsBoolean()) {
      assertThat(System.nanoTime()).as("pipeline done in 30 s").isLessThan(deadline);
      relay.runOnce();
      for (Consumer c : consumers) {
        c.runOnce();
      }
    }
  }

  @Test
  void twoHopsMakeOneTraceFromTheRequestToTheLastEffect() {
    once();
    pipeline(RetryPolicy.builder().maxAttempts(3).build(), new AtomicBoolean());
    otel.inRequest(
        "POST /orders",
        () -> {
          placeOrder(814, Map.of());
          return null;
        });
    runUntil(() -> effects.size() == 1 && otel.all("process " + dispatch).size() == 1);

    SpanData request = otel.span("POST /orders");
    SpanData createOrders = otel.span("create " + orders);
    SpanData processOrders = otel.span("process " + orders);
    SpanData createDispatch = otel.span("create " + dispatch);
    SpanData processDispatch = otel.span("process " + dispatch);
    assertThat(List.of(createOrders, processOrders, createDispatch, processDispatch))
        .allSatisfy(s -> assertThat(s.getTraceId()).isEqualTo(request.getTraceId()));
    assertThat(createOrders.getParentSpanId()).isEqualTo(request.getSpanId());
    assertThat(processOrders.getParentSpanId()).isEqualTo(createOrders.getSpanId());
    assertThat(createDispatch.getParentSpanId()).isEqualTo(processOrders.getSpanId());
    assertThat(processDispatch.getParentSpanId()).isEqualTo(createDispatch.getSpanId());

    assertThat(createOrders.getKind()).isEqualTo(SpanKind.PRODUCER);
    assertThat(processOrders.getKind()).isEqualTo(SpanKind.CONSUMER);
    assertThat(processOrders.getAttributes().get(OUTCOME)).isEqualTo("PROCESSED");
    assertThat(processOrders.getAttributes().get(MESSAGE_ID)).isEqualTo("order-placed:814");
    assertThat(
            processOrders
                .getAttributes()
                .get(AttributeKey.stringKey("messaging.consumer.group.name")))
        .isEqualTo("warehouse");
    assertThat(processOrders.getAttributes().get(AttributeKey.stringKey("messaging.system")))
        .isEqualTo(transport.name());
    assertThat(otel.spans())
        .as("no payload value in any attribute")
        .allSatisfy(s -> assertThat(s.getAttributes().toString()).doesNotContain("4111"));

    SpanData send = otel.span("send " + orders);
    assertThat(send.getKind()).isEqualTo(SpanKind.PRODUCER);
    assertThat(send.getLinks())
        .singleElement()
        .satisfies(
            l -> assertThat(l.getSpanContext().getSpanId()).isEqualTo(createOrders.getSpanId()));
  }

  @Test
  void theContextIsStoredWithTheRowOnceAndAForeignOneIsHonoured() throws Exception {
    once();
    pipeline(RetryPolicy.builder().maxAttempts(3).build(), new AtomicBoolean());
    String foreign = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    otel.inRequest(
        "POST /orders",
        () -> {
          placeOrder(1, Map.of());
          placeOrder(2, Map.of(Tracing.TRACEPARENT, foreign));
          return null;
        });
    // packed in the trace column (PostgreSQL, schema V7): version, trace id, span id, flags
    assertThat(db.count("SELECT count(*) FROM once_outbox WHERE trace IS NOT NULL")).isEqualTo(2);
    assertThat(db.count("SELECT count(*) FROM once_outbox WHERE 'traceparent' = ANY(headers)"))
        .as("not in the headers array as well")
        .isZero();
    assertThat(
            db.count(
                "SELECT count(*) FROM once_outbox WHERE event_id = 'order-placed:2'"
                    + " AND trace = decode(?, 'hex')",
                foreign.replace("-", "")))
        .isEqualTo(1);
    runUntil(() -> otel.all("process " + orders).size() == 2);
    SpanData second =
        otel.all("process " + orders).stream()
            .filter(s -> "order-placed:2".equals(s.getAttributes().get(MESSAGE_ID)))
            .findFirst()
            .orElseThrow();
    assertThat(second.getTraceId()).isEqualTo("0af7651916cd43dd8448eb211c80319c");
    assertThat(second.getParentSpanId()).isEqualTo("b7ad6b7169203331");
    assertThat(otel.all("create " + orders))
        .as("no publish span over a foreign context")
        .hasSize(1);
  }

  @Test
  void aCrashAfterCommitBeforeAckShowsASecondAttemptThatIsADuplicate() {
    // the table queue on Once's own data source is acknowledged by the consumer's commit itself
    // (InDatabaseAck): there is no window after the commit, and no second attempt to trace
    Assumptions.assumeFalse(
        transport
            .capability(dev.once.spi.InDatabaseAck.class)
            .filter(a -> a.acksIn(db.dataSource()))
            .isPresent(),
        "acknowledged in the commit: no window after it");
    once(
        FaultInjector.once(
            CrashPoint.CONSUMER_AFTER_COMMIT_BEFORE_ACK, "warehouse/order-placed:7"));
    pipeline(RetryPolicy.builder().maxAttempts(3).build(), new AtomicBoolean());
    otel.inRequest(
        "POST /orders",
        () -> {
          placeOrder(7, Map.of());
          return null;
        });
    once.newRelay().runOnce();
    Consumer warehouse = consumers.get(0);
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    boolean crashed = false;
    while (!crashed) {
      assertThat(System.nanoTime()).isLessThan(deadline);
      try {
        warehouse.runOnce();
      } catch (SimulatedCrash e) {
        crashed = true;
      }
    }
    runUntil(() -> otel.all("process " + orders).size() == 2 && effects.size() == 1);

    SpanData create = otel.span("create " + orders);
    List<SpanData> attempts = otel.all("process " + orders);
    assertThat(attempts)
        .allSatisfy(a -> assertThat(a.getParentSpanId()).isEqualTo(create.getSpanId()));
    assertThat(attempts.get(0).getAttributes().get(AttributeKey.stringKey("error.type")))
        .isEqualTo(SimulatedCrash.class.getName());
    assertThat(attempts.get(1).getAttributes().get(OUTCOME)).isEqualTo("DUPLICATE");
    assertThat(effects).as("one effect, though the warehouse ran twice").hasSize(1);
  }

  @Test
  void aFailedAttemptsSpanCarriesTheHandlersErrorTypeAndAnErrorStatus() {
    once();
    AtomicBoolean fails = new AtomicBoolean(true);
    pipeline(
        RetryPolicy.builder()
            .maxAttempts(3)
            .backoff(Duration.ofMillis(1), Duration.ofMillis(1))
            .build(),
        fails);
    otel.inRequest(
        "POST /orders",
        () -> {
          placeOrder(11, Map.of());
          return null;
        });
    runUntil(() -> otel.all("process " + dispatch).size() == 1);
    SpanData failed = otel.span("process " + dispatch);
    assertThat(failed.getAttributes().get(OUTCOME)).isEqualTo("RETRY");
    assertThat(failed.getAttributes().get(ERROR_TYPE))
        .isEqualTo(IllegalStateException.class.getName());
    assertThat(failed.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(failed.toString()).doesNotContain("secret payload");

    fails.set(false);
    runUntil(() -> effects.size() == 1);
    List<SpanData> attempts = otel.all("process " + dispatch);
    SpanData processed = attempts.get(attempts.size() - 1);
    assertThat(processed.getAttributes().get(OUTCOME)).isEqualTo("PROCESSED");
    assertThat(processed.getAttributes().get(ERROR_TYPE)).isNull();
    assertThat(processed.getStatus().getStatusCode()).isNotEqualTo(StatusCode.ERROR);
  }

  @Test
  void aReplayedDeadLetterKeepsTheOriginalTraceId() {
    once();
    Logger runner = (Logger) LoggerFactory.getLogger("dev.once.internal.consumer.DeliveryRunner");
    deadLetterLines.start();
    runner.addAppender(deadLetterLines);
    AtomicBoolean fails = new AtomicBoolean(true);
    pipeline(RetryPolicy.builder().maxAttempts(1).build(), fails);
    otel.inRequest(
        "POST /orders",
        () -> {
          placeOrder(9, Map.of());
          return null;
        });
    runUntil(() -> otel.all("process " + dispatch).size() == 1);
    SpanData dead = otel.span("process " + dispatch);
    assertThat(dead.getAttributes().get(OUTCOME)).isEqualTo("DEAD");
    assertThat(dead.getAttributes().get(ERROR_TYPE))
        .isEqualTo(IllegalStateException.class.getName());
    assertThat(dead.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    SpanData write = otel.span("dead-letter " + dispatch);
    assertThat(write.getParentSpanId()).isEqualTo(dead.getSpanId());
    assertThat(otel.spans())
        .allSatisfy(s -> assertThat(s.toString()).doesNotContain("secret payload"));

    assertThat(deadLetterLines.list)
        .as("the dead-letter WARN line carries the trace id and the event id in the MDC")
        .anySatisfy(
            line -> {
              assertThat(line.getLevel()).isEqualTo(Level.WARN);
              assertThat(line.getMDCPropertyMap())
                  .containsEntry("traceId", dead.getTraceId())
                  .containsEntry("once.eventId", dead.getAttributes().get(MESSAGE_ID))
                  .containsEntry("once.consumer", "notifier");
            });

    fails.set(false);
    assertThat(once.deadLetters().replay(DeadLetterFilter.open(), "test", "mail server back"))
        .hasSize(1);
    runUntil(() -> effects.size() == 1);
    runUntil(() -> otel.all("process " + dispatch).size() == 2);
    SpanData replayed = otel.all("process " + dispatch).get(1);
    assertThat(replayed.getAttributes().get(OUTCOME)).isEqualTo("PROCESSED");
    assertThat(replayed.getTraceId()).isEqualTo(otel.span("POST /orders").getTraceId());
    assertThat(replayed.getParentSpanId()).isEqualTo(dead.getParentSpanId());
  }

  @Test
  void anEventPublishedWithNoCurrentSpanMakesNoSpanAnywhere() throws Exception {
    once();
    pipeline(RetryPolicy.builder().maxAttempts(3).build(), new AtomicBoolean());
    placeOrder(3, Map.of());
    assertThat(
            db.count(
                "SELECT count(*) FROM once_outbox"
                    + " WHERE trace IS NOT NULL OR 'traceparent' = ANY(headers)"))
        .isZero();
    runUntil(() -> effects.size() == 1);
    assertThat(otel.spans()).isEmpty();
  }
}
