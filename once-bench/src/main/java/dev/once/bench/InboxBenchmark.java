package dev.once.bench;

import dev.once.Consumer;
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
 * The inbox path: one consumer batch = one transaction with a savepoint, marker and handler per
 * delivery (an effect row and an outgoing event, as the demo's warehouse), one commit. {@code
 * fresh}: new events (every marker inserts); {@code duplicate}: the same events again (every marker
 * conflicts and the handler is skipped). Score = batches per second.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class InboxBenchmark {
  @Param({"32"})
  int batch;

  @Param({"fresh", "duplicate"})
  String events;

  private BenchDatabase db;
  private Once once;
  private Consumer consumer;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    db = new BenchDatabase();
    once =
        Once.builder()
            .dataSource(db.dataSource())
            .transport(new MemoryTransport(batch, events.equals("duplicate")))
            .destinations("in", "out")
            .build();
    consumer =
        once.consumer("jmh")
            .subscribe(
                "in",
                (tx, e) -> {
                  tx.update("INSERT INTO jmh_effects (event_id) VALUES (?)", e.id().value());
                  tx.publish(
                      e.follow("done").destination("out").type("Done").payload("{}").build());
                })
            .batchSize(batch)
            .build();
  }

  @Benchmark
  public int consumerBatch() {
    return consumer.runOnce();
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    consumer.close();
    once.close();
    db.close();
  }
}
