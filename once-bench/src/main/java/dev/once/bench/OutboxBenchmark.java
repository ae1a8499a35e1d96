package dev.once.bench;

import dev.once.Event;
import dev.once.EventId;
import dev.once.Once;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The outbox path: a producer transaction that writes {@code events} outbox rows and commits
 * (synchronous commit: one WAL flush). Score = transactions per second.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class OutboxBenchmark {
  @Param({"1", "100"})
  int events;

  private BenchDatabase db;
  private Once once;
  private long next;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    db = new BenchDatabase();
    once =
        Once.builder()
            .dataSource(db.dataSource())
            .transport(new MemoryTransport(1, false))
            .destinations("orders")
            .build();
  }

  @Benchmark
  public int producerTransaction() {
    long first = next;
    next += events;
    return once.inTransaction(
        tx -> {
          int written = 0;
          for (long id = first; id < first + events; id++) {
            Event e =
                Event.of(EventId.of("order-paid", id), "orders", Long.toString(id), "Paid", "{}");
            written += tx.publish(e) ? 1 : 0;
          }
          return written;
        });
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    once.close();
    db.close();
  }
}
