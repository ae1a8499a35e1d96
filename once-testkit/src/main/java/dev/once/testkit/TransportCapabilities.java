package dev.once.testkit;

import dev.once.spi.BrokerDeadLetters;
import dev.once.spi.ConnectionUse;
import dev.once.spi.DeliveryLimit;
import dev.once.spi.ForwardingTransport;
import dev.once.spi.InDatabaseAck;
import dev.once.spi.InDatabasePublish;
import dev.once.spi.KeyOrder;
import dev.once.spi.PublishLimits;
import dev.once.spi.QueueAdmin;
import dev.once.spi.QueueOrder;
import dev.once.spi.Replay;
import dev.once.spi.RetentionCheck;
import dev.once.spi.Transport;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The optional capabilities of a {@link Transport}, and the check that a decorator kept every one
 * of the transport it wraps. A decorator that implements {@link Transport} by hand and forgets one
 * silently switches it off (a retention check that {@code OnceBuilder.build()} relies on, a
 * delivery limit, broker dead letters); one that extends {@link ForwardingTransport} keeps them.
 *
 * <pre>{@code
 * TransportCapabilities.assertKept(kafka, new MyTracingTransport(kafka));
 * }</pre>
 */
public final class TransportCapabilities {

  /** Every capability interface of {@code dev.once.spi}. */
  public static final List<Class<?>> ALL =
      List.of(
          PublishLimits.class,
          DeliveryLimit.class,
          RetentionCheck.class,
          InDatabasePublish.class,
          InDatabaseAck.class,
          Replay.class,
          QueueAdmin.class,
          BrokerDeadLetters.class,
          ConnectionUse.class,
          KeyOrder.class,
          QueueOrder.class);

  private TransportCapabilities() {}

  /** The capabilities {@code transport} has, as {@link Transport#capability} finds them. */
  public static Set<Class<?>> of(Transport transport) {
    Set<Class<?>> found = new LinkedHashSet<>();
    for (Class<?> c : ALL) {
      if (transport.capability(c).isPresent()) {
        found.add(c);
      }
    }
    return found;
  }

  /**
   * Fails, naming each one, if {@code wrapper} lacks a capability that {@code wrapped} has.
   *
   * @throws AssertionError naming the capabilities the wrapper dropped
   */
  public static void assertKept(Transport wrapped, Transport wrapper) {
    List<String> dropped = new ArrayList<>();
    for (Class<?> c : of(wrapped)) {
      if (wrapper.capability(c).isEmpty()) {
        dropped.add(c.getSimpleName());
      }
    }
    if (!dropped.isEmpty()) {
      throw new AssertionError(
          wrapper.getClass().getName()
              + " wrapping "
              + wrapped.name()
              + " dropped "
              + String.join(", ", dropped)
              + " (it has "
              + names(of(wrapper))
              + "): extend dev.once.spi.ForwardingTransport, which carries every capability");
    }
  }

  private static String names(Set<Class<?>> capabilities) {
    List<String> names = new ArrayList<>();
    capabilities.forEach(c -> names.add(c.getSimpleName()));
    return names.isEmpty() ? "none" : String.join(", ", names);
  }
}
