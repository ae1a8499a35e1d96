package dev.once.testkit;

import dev.once.Event;
import dev.once.spi.Delivery;
import dev.once.spi.PublishResult;
import dev.once.spi.Receiver;
import dev.once.spi.Transport;
import java.time.Duration;
import java.util.List;

/**
 * A deliberately broken transport: its receivers acknowledge every delivery as soon as it is
 * polled, before the consumer's transaction. A crash before the commit then loses the event. Tests
 * use it to show that their checks catch an implementation that acknowledges too early.
 */
public final class EarlyAckingTransport implements Transport {
  private final Transport delegate;

  public EarlyAckingTransport(Transport delegate) {
    this.delegate = delegate;
  }

  @Override
  public String name() {
    return "early-acking " + delegate.name();
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
    return delegate.publish(batch, confirmTimeout);
  }

  @Override
  public Receiver receiver(String destination, String consumerGroup) {
    Receiver inner = delegate.receiver(destination, consumerGroup);
    return new Receiver() {
      @Override
      public List<Delivery> poll(int max, Duration wait) throws InterruptedException {
        List<Delivery> got = inner.poll(max, wait);
        inner.ack(got);
        return got;
      }

      @Override
      public void ack(List<Delivery> deliveries) {}

      @Override
      public void nack(List<Delivery> deliveries, Duration delay) {}

      @Override
      public void close() {
        inner.close();
      }
    };
  }

  @Override
  public void close() {
    delegate.close();
  }
}
