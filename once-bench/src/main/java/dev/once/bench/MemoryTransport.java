package dev.once.bench;

import dev.once.Event;
import dev.once.EventId;
import dev.once.spi.Delivery;
import dev.once.spi.PublishResult;
import dev.once.spi.Receiver;
import dev.once.spi.Transport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A transport without a broker, so that a benchmark measures Once's own work: publishing confirms
 * everything at once; every poll returns {@code batch} deliveries, of new events or (with {@code
 * repeat}) always of the same events.
 */
final class MemoryTransport implements Transport {
  private final int batch;
  private final boolean repeat;
  private final AtomicLong next = new AtomicLong();

  MemoryTransport(int batch, boolean repeat) {
    this.batch = batch;
    this.repeat = repeat;
  }

  @Override
  public String name() {
    return "memory";
  }

  @Override
  public void declare(String destination, String consumerId) {}

  @Override
  public PublishResult publish(List<Event> events, Duration confirmTimeout) {
    return PublishResult.allConfirmed(events.size());
  }

  @Override
  public Receiver receiver(String destination, String consumerId) {
    return new Receiver() {
      @Override
      public List<Delivery> poll(int max, Duration wait) {
        List<Delivery> got = new ArrayList<>(batch);
        long first = repeat ? 0 : next.getAndAdd(batch);
        for (long i = first; i < first + batch; i++) {
          Event e = Event.of(EventId.of("jmh", i), destination, Long.toString(i), "Jmh", "{}");
          got.add(new Delivery(e, 1, false, i));
        }
        return got;
      }

      @Override
      public void ack(List<Delivery> deliveries) {}

      @Override
      public void nack(List<Delivery> deliveries, Duration delay) {}

      @Override
      public void close() {}
    };
  }

  @Override
  public void close() {}
}
