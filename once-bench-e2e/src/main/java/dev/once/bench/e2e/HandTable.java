package dev.once.bench.e2e;

import dev.once.Event;
import dev.once.spi.Delivery;
import dev.once.spi.PublishResult;
import dev.once.spi.Receiver;
import dev.once.tablequeue.TableQueueTransport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/** The table queue: enqueue in a transaction of its own, claim with SKIP LOCKED, ack deletes. */
final class HandTable implements HandBroker {
  private final TableQueueTransport queue;

  HandTable(DataSource dataSource) {
    this.queue = TableQueueTransport.create(dataSource);
  }

  @Override
  public void declare(String destination, String group) {
    queue.declare(destination, group);
  }

  @Override
  public void purge(String destination, String group) {
    queue.purge(destination, group);
  }

  @Override
  public Publisher publisher() {
    return new Publisher() {
      @Override
      public void publishConfirmed(List<Msg> batch) {
        PublishResult r =
            queue.publish(batch.stream().map(Msg::event).toList(), Duration.ofSeconds(30));
        if (!r.failures().isEmpty()) {
          throw new IllegalStateException("ceiling C: the table queue refused " + r.failures());
        }
      }

      @Override
      public void close() {}
    };
  }

  @Override
  public HandReceiver receiver(String destination, String group) {
    Receiver r = queue.receiver(destination, group);
    return new HandReceiver() {
      @Override
      public List<Msg> poll(int max, long waitMillis) throws InterruptedException {
        List<Msg> got = new ArrayList<>();
        for (Delivery d : r.poll(max, Duration.ofMillis(waitMillis))) {
          Event e = d.event();
          got.add(new Msg(e.id().value(), e.destination(), e.key(), e.type(), e.payload(), d));
        }
        return got;
      }

      @Override
      public void ack(List<Msg> messages) {
        r.ack(messages.stream().map(m -> (Delivery) m.handle()).toList());
      }

      @Override
      public void close() {
        r.close();
      }
    };
  }

  @Override
  public void close() {
    queue.close();
  }
}
