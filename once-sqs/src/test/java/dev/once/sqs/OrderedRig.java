package dev.once.sqs;

import dev.once.OnceListener;
import dev.once.spi.Transport;
import dev.once.test.TestDatabase;
import dev.once.testkit.KeyOrderRig;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;

/**
 * The key-order checker's rig ({@link KeyOrderRig}) on SQS (ElasticMQ in the test JVM): one SQS
 * transport per member, on FIFO queues unless the rig is told otherwise.
 */
final class OrderedRig extends KeyOrderRig {
  final TestDatabase db;
  final SqsTransport sqs;
  private final String prefix =
      "o" + Long.toHexString(ThreadLocalRandom.current().nextLong()) + "-";
  private final boolean fifo;

  /**
   * @param fifo FIFO queues (false: standard, for the broken twin)
   * @param wrap wraps each member's transport (receivers that die or hold a message back)
   * @param dataSource Once's data source, {@code db}'s or a wrapper of it (null: {@code db}'s)
   */
  OrderedRig(
      TestDatabase db,
      boolean fifo,
      OnceListener listener,
      UnaryOperator<Transport> wrap,
      DataSource dataSource) {
    super(db.dataSource(), db.dialect(), listener, wrap, dataSource);
    this.db = db;
    this.fifo = fifo;
    sqs = newTransport();
    join(sqs);
  }

  @Override
  protected SqsTransport newTransport() {
    return closing(Sqs.transport().fifo(fifo).namePrefix(prefix).build());
  }

  /** The URL of the group's queue (declared). */
  String queueUrl() {
    sqs.declare(destination(), "warehouse");
    String name = prefix + destination() + "__warehouse" + (fifo ? ".fifo" : "");
    return sqs.client().getQueueUrl(b -> b.queueName(name)).join().queueUrl();
  }

  /** Messages left in the group's queue: visible, in flight or delayed. */
  long leftInSqs() {
    return sqs.depth(destination(), "warehouse").orElseThrow();
  }
}
