package dev.once.spi;

import dev.once.Event;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A transport that wraps another and passes every call on: the base of every decorator (fault
 * injection, counting, tracing). Override what the decorator changes. {@link #capability} answers
 * for this object first and then for the wrapped transport, so a decorator carries every capability
 * of what it wraps — a retention check, a delivery limit, broker dead letters — without forwarding
 * each by hand; to change a capability, implement its interface here (it then wins over the wrapped
 * one), and to hide one, override {@link #capability}.
 *
 * <pre>{@code
 * final class CountingTransport extends ForwardingTransport {
 *   final LongAdder published = new LongAdder();
 *
 *   CountingTransport(Transport delegate) {
 *     super(delegate);
 *   }
 *
 *   @Override
 *   public PublishResult publish(List<Event> batch, Duration confirmTimeout) {
 *     published.add(batch.size());
 *     return super.publish(batch, confirmTimeout);
 *   }
 * }
 * }</pre>
 */
public abstract class ForwardingTransport implements Transport {
  private final Transport delegate;

  protected ForwardingTransport(Transport delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  /** The transport this one wraps. */
  protected final Transport delegate() {
    return delegate;
  }

  @Override
  public String name() {
    return delegate.name();
  }

  @Override
  public void declare(String destination, String consumerId) {
    delegate.declare(destination, consumerId);
  }

  @Override
  public PublishResult publish(List<Event> batch, Duration confirmTimeout) {
    return delegate.publish(batch, confirmTimeout);
  }

  @Override
  public Receiver receiver(String destination, String consumerId) {
    return delegate.receiver(destination, consumerId);
  }

  /** This object if it is a {@code type}, otherwise what the wrapped transport says. */
  @Override
  public <C> Optional<C> capability(Class<C> type) {
    return type.isInstance(this) ? Optional.of(type.cast(this)) : delegate.capability(type);
  }

  @Override
  public void close() {
    delegate.close();
  }
}
