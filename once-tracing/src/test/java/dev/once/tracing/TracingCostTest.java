package dev.once.tracing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.Consumer;
import dev.once.Event;
import dev.once.EventId;
import dev.once.Once;
import dev.once.ReceivedEvent;
import dev.once.Tracing;
import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * Tracing costs no database work: the trace context rides in the outbox row's headers, written by
 * the insert that writes the row, and the spans are made in memory. The same two hops, with tracing
 * off and on, run the same statements and the same commits.
 */
class TracingCostTest {
  static final int EVENTS = 20;

  record Cost(long statements, long commits, int effects) {}

  @Test
  void twoHopsRunTheSameStatementsAndCommitsWithTracingOnAsOff() {
    OtelTracing otel = new OtelTracing();
    Cost off = run(ds -> Tracing.NONE, null);
    Cost on = run(ds -> otel.tracing, otel);
    assertThat(on.effects()).isEqualTo(EVENTS);
    assertThat(otel.all("process dispatch")).as("it did trace").hasSize(EVENTS);
    assertThat(on).isEqualTo(off);
  }

  /**
   * The broken twin: a hook that also writes to the database is caught, one statement a publish.
   */
  @Test
  void aTracingHookThatRunsAStatementPerPublishIsCaught() {
    OtelTracing otel = new OtelTracing();
    Cost off = run(ds -> Tracing.NONE, null);
    Cost broken = run(ds -> new StatementPerPublish(otel.tracing, ds), otel);
    assertThat(broken.effects()).isEqualTo(EVENTS);
    assertThat(broken).isNotEqualTo(off);
    assertThat(broken.statements() - off.statements()).isEqualTo(2L * EVENTS); // both hops publish
  }

  /** A tracing hook that records each publish with a statement of its own (what must not be). */
  private record StatementPerPublish(Tracing real, DataSource dataSource) implements Tracing {
    @Override
    public Span publish(Event event, Map<String, String> carrier) {
      try (Connection c = dataSource.getConnection();
          Statement s = c.createStatement()) {
        s.execute("SELECT 1");
      } catch (SQLException e) {
        throw new IllegalStateException(e);
      }
      return real.publish(event, carrier);
    }

    @Override
    public Span send(String system, Event event) {
      return real.send(system, event);
    }

    @Override
    public Span process(String system, ReceivedEvent event) {
      return real.process(system, event);
    }
  }

  private static Cost run(Function<DataSource, Tracing> tracingOn, OtelTracing otel) {
    try (TestDatabase db = TestDatabase.embedded()) {
      StatementCounter counter = new StatementCounter(db.dataSource());
      Tracing tracing = tracingOn.apply(counter.dataSource);
      AtomicInteger effects = new AtomicInteger();
      try (TableQueueTransport transport = TableQueueTransport.create(counter.dataSource);
          Once once =
              Once.builder()
                  .dataSource(counter.dataSource)
                  .transport(transport)
                  .destinations("orders", "dispatch")
                  .tracing(tracing)
                  .build();
          Consumer warehouse =
              once.consumer("warehouse")
                  .subscribe(
                      "orders",
                      (tx, e) ->
                          tx.publish(
                              e.follow("queued")
                                  .destination("dispatch")
                                  .type("Queued")
                                  .payload("{}")
                                  .build()))
                  .batchSize(EVENTS)
                  .batchLinger(Duration.ZERO)
                  .build();
          Consumer notifier =
              once.consumer("notifier")
                  .subscribe("dispatch", (tx, e) -> effects.incrementAndGet())
                  .batchSize(EVENTS)
                  .batchLinger(Duration.ZERO)
                  .build()) {
        long statements = counter.statements.get();
        long commits = counter.commits.get();
        Runnable publish =
            () -> {
              for (int i = 0; i < EVENTS; i++) {
                long id = i;
                once.inTransaction(
                    tx ->
                        tx.publish(
                            Event.of(EventId.of("order", id), "orders", null, "Order", "{}")));
              }
            };
        if (otel != null) {
          otel.inRequest(
              "POST /orders",
              () -> {
                publish.run();
                return null;
              });
        } else {
          publish.run();
        }
        once.newRelay().runOnce();
        warehouse.runOnce();
        once.newRelay().runOnce();
        notifier.runOnce();
        return new Cost(
            counter.statements.get() - statements, counter.commits.get() - commits, effects.get());
      }
    }
  }
}
