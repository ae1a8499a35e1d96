package dev.once.rabbitmq.internal;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.RecoveryDelayHandler;
import com.rabbitmq.client.impl.FrameHandlerFactory;
import com.rabbitmq.client.impl.recovery.RecordedBinding;
import com.rabbitmq.client.impl.recovery.RecordedExchange;
import com.rabbitmq.client.impl.recovery.RecordedQueue;
import com.rabbitmq.client.impl.recovery.TopologyRecoveryFilter;
import dev.once.BrokerUnavailableException;
import dev.once.rabbitmq.RabbitConfig;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transport's two connections: one for publishing, one for consuming (so flow control on
 * publishers never stalls acknowledgements). Opened on first use; once open, the client recovers
 * them (and their channels and consumers, see {@link #CONSUMERS_ONLY}) with a doubling, capped
 * delay. A connection that could not be opened at all is tried again at the next use, not in a
 * loop. Once closed, they stay closed: a relay or worker thread still running after {@link
 * #close()} gets an {@link IllegalStateException} instead of a new connection that nobody would
 * close (it would go on recovering, into a virtual host that may no longer exist, for the life of
 * the JVM).
 */
public final class Connections implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Connections.class);

  private final RabbitConfig config;
  private final ConnectionFactory factory;
  private final ClientOutages outages;
  private Connection publishing;
  private Connection consuming;
  private boolean closed;

  public Connections(RabbitConfig config) {
    this.config = config;
    this.outages = new ClientOutages(config.safeUri());
    this.factory = factory(config, outages);
  }

  static ConnectionFactory factory(RabbitConfig config, ClientOutages outages) {
    ConnectionFactory f =
        new ConnectionFactory() {
          @Override
          protected synchronized FrameHandlerFactory createFrameHandlerFactory()
              throws IOException {
            return BatchFlushes.wrap(super.createFrameHandlerFactory());
          }
        };
    try {
      f.setUri(config.uri());
    } catch (Exception e) {
      throw new IllegalArgumentException("rabbitmq.uri " + config.safeUri() + ": " + e, e);
    }
    String path = config.uri().getRawPath();
    if (path == null || path.isEmpty() || path.equals("/")) {
      // The AMQP URI spec reads "amqp://host/" as the empty vhost name; everyone means "/".
      f.setVirtualHost("/");
    }
    f.setAutomaticRecoveryEnabled(true);
    f.setTopologyRecoveryEnabled(true);
    f.setTopologyRecoveryFilter(CONSUMERS_ONLY);
    f.setRecoveryDelayHandler(backoff(config));
    f.setExceptionHandler(outages);
    f.setConnectionTimeout((int) config.connectionTimeout().toMillis());
    f.setRequestedHeartbeat(10);
    return f;
  }

  /**
   * What the client brings back after a reconnection: the consumers, not the exchanges, queues and
   * bindings. Those are durable (they outlive a broker restart), and the client would declare each
   * again on the short-lived channel that first declared it, long closed: one ERROR with a stack
   * trace per entity at every recovery. A receiver whose queue is really gone (a broker that lost
   * its data) sees its consumer fail and is replaced, and a new receiver declares the topology.
   */
  static final TopologyRecoveryFilter CONSUMERS_ONLY =
      new TopologyRecoveryFilter() {
        @Override
        public boolean filterExchange(RecordedExchange exchange) {
          return false;
        }

        @Override
        public boolean filterQueue(RecordedQueue queue) {
          return false;
        }

        @Override
        public boolean filterBinding(RecordedBinding binding) {
          return false;
        }
      };

  /** initial, 2×initial, 4×initial … up to max, then max for every further attempt. */
  static RecoveryDelayHandler backoff(RabbitConfig config) {
    List<Long> delays = new ArrayList<>();
    long d = config.recoveryInitialDelay().toMillis();
    long max = config.recoveryMaxDelay().toMillis();
    while (d < max) {
      delays.add(d);
      d *= 2;
    }
    delays.add(max);
    return new RecoveryDelayHandler.ExponentialBackoffDelayHandler(delays);
  }

  /** The broker's URI without the password. */
  public String safeUri() {
    return config.safeUri();
  }

  /** A new channel on the publishing connection. */
  public Channel publishChannel() {
    return open(publishing());
  }

  /** A new channel on the consuming connection. */
  public Channel consumeChannel() {
    return open(consuming());
  }

  private synchronized Connection publishing() {
    refuseIfClosed();
    if (publishing == null) {
      publishing = connect("once-publisher");
    }
    return publishing;
  }

  private synchronized Connection consuming() {
    refuseIfClosed();
    if (consuming == null) {
      consuming = connect("once-consumer");
    }
    return consuming;
  }

  private void refuseIfClosed() {
    if (closed) {
      throw new IllegalStateException("the RabbitMQ transport is closed");
    }
  }

  private Connection connect(String name) {
    try {
      Connection c = factory.newConnection(name);
      outages.watch(c);
      log.info("connected to RabbitMQ at {} ({})", config.safeUri(), name);
      return c;
    } catch (IOException | TimeoutException e) {
      throw new BrokerUnavailableException(
          "RabbitMQ at " + config.safeUri(), "is not reachable: " + e, e);
    }
  }

  private Channel open(Connection c) {
    if (!c.isOpen()) {
      throw new BrokerUnavailableException(
          "RabbitMQ at " + config.safeUri(),
          "connection is down, recovering: " + c.getCloseReason(),
          null);
    }
    Channel channel;
    try {
      channel = c.createChannel();
    } catch (IOException | RuntimeException e) {
      throw new BrokerUnavailableException(
          "RabbitMQ at " + config.safeUri(), "refused a channel: " + e, e);
    }
    if (channel == null) {
      throw new BrokerUnavailableException(
          "RabbitMQ at " + config.safeUri(), "has no free channel", null);
    }
    return channel;
  }

  @Override
  public synchronized void close() {
    closed = true;
    for (Connection c : new Connection[] {publishing, consuming}) {
      if (c != null) {
        c.abort(2_000);
      }
    }
    publishing = null;
    consuming = null;
  }
}
