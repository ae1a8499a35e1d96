package dev.once.rabbitmq;

import dev.once.OnceListener;
import dev.once.spi.Transport;
import dev.once.test.TestDatabase;
import dev.once.testkit.KeyOrderRig;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;

/**
 * The key-order checker's rig ({@link KeyOrderRig}) on RabbitMQ: one RabbitMQ transport per member,
 * in the test's virtual host.
 */
final class OrderedRig extends KeyOrderRig {
  final TestDatabase db;
  final String vhost;

  /**
   * @param wrap wraps each member's transport (receivers that die, a twin without a single active
   *     consumer)
   * @param dataSource Once's data source, {@code db}'s or a wrapper of it (null: {@code db}'s)
   */
  OrderedRig(
      TestDatabase db,
      String vhost,
      OnceListener listener,
      UnaryOperator<Transport> wrap,
      DataSource dataSource) {
    super(db.dataSource(), db.dialect(), listener, wrap, dataSource);
    this.db = db;
    this.vhost = vhost;
    join();
  }

  @Override
  protected Transport newTransport() {
    return closing(
        RabbitTransport.builder()
            .uri(Broker.uri(vhost))
            .prefetch(16)
            .maxNackDelay(Duration.ofSeconds(2))
            .build());
  }

  /** The group's queue in RabbitMQ, messages ready or delivered and not acknowledged. */
  long unsettled() {
    return Broker.messagesUnsettled(vhost, destination() + ".warehouse");
  }

  /** Holds a value for a listener made before the rig. */
  static final class Later<T> extends AtomicReference<T> {}
}
