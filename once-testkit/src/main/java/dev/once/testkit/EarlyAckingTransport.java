package dev.once.testkit;

import dev.once.spi.Delivery;
import dev.once.spi.ForwardingTransport;
import dev.once.spi.Receiver;
import dev.once.spi.Transport;
import java.time.Duration;
import java.util.List;

/**
 * A deliberately broken transport: its receivers acknowledge every delivery as soon as it is
 * polled, before the consumer's transaction. A crash before the commit then loses the event. Tests
 * use it to show that their checks catch an implementation that acknowledges too early. Every
 * capability of the wrapped transport is kept.
 */
public final class EarlyAckingTransport extends ForwardingTransport {

  public EarlyAckingTransport(Transport delegate) {
    super(delegate);
  }

  @Override
  public String name() {
    return "early-acking " + super.name();
  }

  @Override
  public Receiver receiver(String destination, String consumerId) {
    Receiver inner = super.receiver(destination, consumerId);
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
}
