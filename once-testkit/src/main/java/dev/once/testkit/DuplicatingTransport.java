package dev.once.testkit;

import dev.once.Event;
import dev.once.spi.PublishResult;
import dev.once.spi.Receiver;
import dev.once.spi.Transport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Wraps a transport and publishes a share of the messages a second time, as a broker or a network
 * retry would: the consumer receives two deliveries of one event.
 */
public final class DuplicatingTransport implements Transport {
  private final Transport delegate;
  private final double rate;
  private final SplittableRandom random;
  private final AtomicLong duplicated = new AtomicLong();

  public DuplicatingTransport(Transport delegate, double rate, long seed) {
    if (rate < 0 || rate > 1) {
      throw new IllegalArgumentException("duplicate rate must be between 0 and 1, was " + rate);
    }
    this.delegate = delegate;
    this.rate = rate;
    this.random = new SplittableRandom(seed);
  }

  @Override
  public String name() {
    return delegate.name();
  }

  @Override
  public void declare(String destination, String consumerGroup) {
    delegate.declare(destination, consumerGroup);
  }

  @Override
  public void checkPublishable(Event event) {
    delegate.checkPublishable(event);
  }

  @Override
  public java.util.OptionalInt deliveryLimit() {
    return delegate.deliveryLimit();
  }

  @Override
  public PublishResult redeliver(Event event, String consumerGroup, Duration confirmTimeout) {
    return delegate.redeliver(event, consumerGroup, confirmTimeout);
  }

  @Override
  public PublishResult publish(List<Event> batch, Duration confirmTimeout) {
    PublishResult result = delegate.publish(batch, confirmTimeout);
    List<Event> again = new ArrayList<>();
    synchronized (random) {
      for (int i = 0; i < batch.size(); i++) {
        if (result.isConfirmed(i) && random.nextDouble() < rate) {
          again.add(batch.get(i));
        }
      }
    }
    if (!again.isEmpty()) {
      PublishResult second = delegate.publish(again, confirmTimeout);
      duplicated.addAndGet(second.confirmed().cardinality());
    }
    return result;
  }

  /** How many extra copies the broker accepted. */
  public long duplicated() {
    return duplicated.get();
  }

  @Override
  public Receiver receiver(String destination, String consumerGroup) {
    return delegate.receiver(destination, consumerGroup);
  }

  @Override
  public OptionalLong depth(String destination, String consumerGroup) {
    return delegate.depth(destination, consumerGroup);
  }

  @Override
  public void purge(String destination, String consumerGroup) {
    delegate.purge(destination, consumerGroup);
  }

  @Override
  public void close() {
    delegate.close();
  }
}
