package dev.once.bench.e2e;

import dev.once.Event;
import dev.once.spi.Delivery;
import dev.once.spi.Receiver;
import dev.once.tablequeue.TableQueueTransport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

/**
 * Ceiling B for the table transport: the table queue alone, no outbox and no inbox. {@code relays}
 * threads enqueue batches of {@code relayBatch} (one transaction each, as the relay does) while
 * {@code workers} threads claim batches of {@code batch} and acknowledge them.
 */
final class CeilingTableQueue {
  private static final String DESTINATION = "bench-ceiling";

  private CeilingTableQueue() {}

  static double run(DataSource dataSource, BenchSettings s) throws InterruptedException {
    try (TableQueueTransport queue = TableQueueTransport.create(dataSource)) {
      queue.declare(DESTINATION, DESTINATION);
      queue.purge(DESTINATION, DESTINATION);
      AtomicLong next = new AtomicLong(1);
      AtomicLong acked = new AtomicLong();
      long end = s.events() + 1L;
      long start = System.nanoTime();
      Threads.run(
          s.relays() + s.workers(),
          i -> {
            if (i < s.relays()) {
              publish(queue, s, next, end);
            } else {
              consume(queue, s, acked);
            }
          });
      double eps = s.events() / ((System.nanoTime() - start) / 1e9);
      queue.purge(DESTINATION, DESTINATION);
      return eps;
    }
  }

  private static void publish(
      TableQueueTransport queue, BenchSettings s, AtomicLong next, long end) {
    for (long from = next.getAndAdd(s.relayBatch());
        from < end;
        from = next.getAndAdd(s.relayBatch())) {
      List<Event> batch = new ArrayList<>();
      for (long id = from; id < Math.min(end, from + s.relayBatch()); id++) {
        Event e = Pipeline.event(id);
        batch.add(new Event(e.id(), DESTINATION, e.key(), e.type(), e.payload(), e.headers()));
      }
      queue.publish(batch, Duration.ofSeconds(30));
    }
  }

  private static void consume(TableQueueTransport queue, BenchSettings s, AtomicLong acked)
      throws InterruptedException {
    Receiver receiver = queue.receiver(DESTINATION, DESTINATION);
    try {
      while (acked.get() < s.events()) {
        List<Delivery> got = receiver.poll(s.batch(), Duration.ofMillis(200));
        if (!got.isEmpty()) {
          receiver.ack(got);
          acked.addAndGet(got.size());
        }
      }
    } finally {
      receiver.close();
    }
  }
}
