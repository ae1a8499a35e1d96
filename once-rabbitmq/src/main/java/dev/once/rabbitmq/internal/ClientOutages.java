package dev.once.rabbitmq.internal;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.Recoverable;
import com.rabbitmq.client.RecoveryListener;
import com.rabbitmq.client.ShutdownSignalException;
import com.rabbitmq.client.TopologyRecoveryException;
import com.rabbitmq.client.impl.ForgivingExceptionHandler;
import dev.once.spi.Outage;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The RabbitMQ client's exception handler: a lost connection and the failed tries to reconnect it
 * are one outage per connection — one WARN when it is lost, DEBUG for each failed try, one INFO
 * when the client has recovered it ({@link Outage}) — instead of the client's default of an ERROR
 * with a stack trace per try. A channel or consumer whose recovery failed because the connection
 * went again meanwhile is a failed try of the same outage, and the outage ends only when a recovery
 * leaves the connection open. What is not about the connection (a consumer, confirm, return or
 * blocked listener that threw; a channel or consumer that could not be recovered on a connection
 * that works) is a real error and stays an ERROR with its trace. A channel this process closed
 * while the client was recovering it (a worker's receiver closed meanwhile) is nothing: DEBUG.
 */
final class ClientOutages extends ForgivingExceptionHandler {
  private static final Logger log = LoggerFactory.getLogger(Connections.class);
  private final String safeUri;
  private final Map<String, Outage> outages = new ConcurrentHashMap<>();

  ClientOutages(String safeUri) {
    this.safeUri = safeUri;
  }

  /** Follows {@code c}: its loss starts an outage, its recovery ends it. */
  void watch(Connection c) {
    c.addShutdownListener(
        cause -> {
          if (!cause.isInitiatedByApplication()) {
            outage(c).failed("lost: {}", describe(cause));
          }
        });
    ((Recoverable) c)
        .addRecoveryListener(
            new RecoveryListener() {
              @Override
              public void handleRecovery(Recoverable recoverable) {
                if (c.isOpen()) { // not cut again while its channels and consumers came back
                  outage(c).ended();
                }
              }

              @Override
              public void handleRecoveryStarted(Recoverable recoverable) {}
            });
  }

  @Override
  public void handleUnexpectedConnectionDriverException(Connection c, Throwable e) {
    outage(c).failed("lost: {}", e.toString());
  }

  @Override
  public void handleConnectionRecoveryException(Connection c, Throwable e) {
    outage(c).failed("reconnecting failed, trying again: {}", e.toString());
  }

  @Override
  public void handleChannelRecoveryException(Channel ch, Throwable e) {
    if (!quiet(ch.getConnection(), "recovering a channel", e)) {
      super.handleChannelRecoveryException(ch, e);
    }
  }

  @Override
  public void handleTopologyRecoveryException(
      Connection c, Channel ch, TopologyRecoveryException e) {
    if (!quiet(c, "recovering a consumer", e)) {
      super.handleTopologyRecoveryException(c, ch, e);
    }
  }

  /**
   * Logs a recovery that failed for no fault of its own, and says so: its channel was closed by
   * this process meanwhile (a worker's receiver closed under the recovery: nothing to recover), or
   * connection {@code c} went again (a failed try of its outage). False for a real error.
   */
  private boolean quiet(Connection c, String what, Throwable e) {
    if (causedBy(e, ShutdownSignalException::isInitiatedByApplication)) {
      log.debug("{} on {}: closed by this process meanwhile, nothing to recover", what, safeUri);
      return true;
    }
    if (!c.isOpen() || causedBy(e, ShutdownSignalException::isHardError)) {
      outage(c).failed(what + " failed, lost again: {}", text(e));
      return true;
    }
    return false;
  }

  /** Whether a shutdown among the causes of {@code e} is one that {@code test} accepts. */
  private static boolean causedBy(Throwable e, Predicate<ShutdownSignalException> test) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof ShutdownSignalException s && test.test(s)) {
        return true;
      }
    }
    return false;
  }

  private Outage outage(Connection c) {
    String name = c.getClientProvidedName() == null ? "connection" : c.getClientProvidedName();
    return outages.computeIfAbsent(
        name, n -> new Outage(log, "RabbitMQ connection " + n + " to " + safeUri));
  }

  /** The failure's own message and its cause's, without a stack trace. */
  private static String text(Throwable e) {
    return e.getCause() == null ? e.toString() : e + ": " + e.getCause();
  }

  /** The broker's reason (reply code and text) without the client's wording around it. */
  private static String describe(ShutdownSignalException cause) {
    return cause.getReason() == null ? cause.toString() : cause.getReason().toString();
  }
}
