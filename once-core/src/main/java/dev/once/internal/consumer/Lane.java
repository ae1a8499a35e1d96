package dev.once.internal.consumer;

import dev.once.ConfigurationException;
import dev.once.ConsumerConfig;
import dev.once.Event;
import dev.once.Outcome;
import dev.once.StoreException;
import dev.once.internal.Jdbc;
import dev.once.jdbc.QueueDialect;
import dev.once.spi.Delivery;
import dev.once.spi.InDatabaseAck;
import dev.once.spi.KeyOrder;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The key lane of an ordered consumer on a broker (docs/ORDERING.md, "Ordered on a broker"): the
 * group's rows of the table queue in Once's own database ({@code once_queue}, in key order),
 * drained by a table-queue consumer of the same group ({@link #drain}) with the ordered claim and
 * the ordered acknowledgement (which parks the key of a dead-lettered row). Two ways in:
 *
 * <ul>
 *   <li>{@link Mode#PARKED_KEYS}, on a broker that hands a key's records out one at a time ({@code
 *       KeyOrder}, Kafka): what it cannot do is keep a parked key's later records. So a
 *       dead-lettered record parks its key in the transaction that writes its dead letter ({@link
 *       #park}); before a batch runs, one statement finds which of its keys are parked or still
 *       have rows in the lane, and only those records are diverted into the lane and acknowledged
 *       after that commit ({@link #divert}). One worker drains the lane.
 *   <li>{@link Mode#EVERY_MESSAGE}, on a broker that hands a key's messages out in queue order,
 *       none while an earlier one is held ({@code QueueOrder}: RabbitMQ's single active consumer,
 *       SQS FIFO's message groups): the receiver (one worker per process) runs no handler; it
 *       writes every well-formed message into the lane, a batch in one transaction, and
 *       acknowledges it after that commit. The consumer's workers run the lane.
 * </ul>
 */
final class Lane {
  /** What goes into the lane. */
  enum Mode {
    /** Nothing: a group ordered once and not now; its lane is drained. */
    DRAIN_ONLY,
    /** The records of a key parked or still in the lane (a broker that orders by key). */
    PARKED_KEYS,
    /** Every well-formed message (a broker that orders by queue): the lane is the whole path. */
    EVERY_MESSAGE
  }

  private final ConsumerContext context;
  private final ConsumerConfig config;
  private final QueueDialect queue;
  private final LaneQueue laneQueue;
  private final Mode mode;

  /** The consumer of the lane: on the group's rows of the table queue, in key order. */
  private final ConsumerImpl drain;

  /**
   * The lane of {@code config}'s consumer, or null where it needs none: an unordered consumer whose
   * group never was ordered, or one whose transport keeps its messages in a table queue (which
   * parks keys itself).
   *
   * @throws ConfigurationException where the database cannot keep a lane
   */
  static Lane of(ConsumerContext context, ConsumerConfig config) {
    if (context.transport().capability(InDatabaseAck.class).isPresent()) {
      return null;
    }
    if (!config.ordered()) {
      return hasLane(context, config) ? new Lane(context, config, Mode.DRAIN_ONLY) : null;
    }
    QueueDialect queue = context.dialect().queue();
    boolean byKey = context.transport().capability(KeyOrder.class).isPresent();
    if (byKey ? !queue.keepsLanes() : !queue.ordersByKey()) {
      throw new ConfigurationException(
          "consumer.ordered",
          "true is refused for consumer '"
              + config.consumerId()
              + "' on transport "
              + context.transport().name()
              + ": the parked keys of an ordered consumer on a broker are kept in Once's database,"
              + " and "
              + context.dialect().name()
              + " has no lane for them (its queue dialect keeps none: the standard one, on PostgreSQL,"
              + " MariaDB and MySQL, does)");
    }
    return new Lane(context, config, byKey ? Mode.PARKED_KEYS : Mode.EVERY_MESSAGE);
  }

  /**
   * Whether an unordered consumer's group still has a lane from when it was ordered: then it drains
   * it (its parked keys wait for an operator as before, and a replay of one goes into the lane),
   * and diverts nothing.
   */
  private static boolean hasLane(ConsumerContext context, ConsumerConfig config) {
    QueueDialect queue = context.dialect().queue();
    if (!queue.ordersByKey()) {
      return false;
    }
    try (Connection c = context.dataSource().getConnection()) {
      return queue.hasLane(c, config.destination(), config.consumerId());
    } catch (SQLException e) {
      throw new StoreException("consumer " + config.consumerId() + " key lane", e);
    }
  }

  private Lane(ConsumerContext context, ConsumerConfig config, Mode mode) {
    this.context = context;
    this.config = config;
    this.mode = mode;
    this.queue = context.dialect().queue();
    this.laneQueue = new LaneQueue(context);
    ConsumerContext onLane =
        new ConsumerContext(
            context.dataSource(),
            context.dialect(),
            context.transactions(),
            context.batchWaits(),
            laneQueue,
            context.listener(),
            context.tracing(),
            context.clock(),
            context.newTx(),
            context.outboxCommitted(),
            Optional.of(laneQueue),
            new Unmanaged());
    this.drain =
        new ConsumerImpl( // declares the lane: the group bound to it, in key order
            onLane,
            new ConsumerConfig(
                config.consumerId(),
                config.destination(),
                config.handler(),
                mode == Mode.EVERY_MESSAGE ? config.workers() : 1,
                config.batchSize(),
                config.idleWait(),
                config.retry(),
                config.batchLinger(),
                true));
  }

  /**
   * How many workers of the broker's consumer receive from the broker: one where the lane takes
   * every message (on RabbitMQ one receiver of the group is active at a time across every process
   * and the others would stand by; on SQS FIFO one receiver keeps several long polls going),
   * otherwise all of them.
   */
  int brokerWorkers() {
    return mode == Mode.EVERY_MESSAGE ? 1 : config.workers();
  }

  /** The lane's consumer: started, stopped and run with the broker's. */
  ConsumerImpl drain() {
    return drain;
  }

  void close() {
    drain.close();
    laneQueue.close();
  }

  /**
   * Of {@code held}, the deliveries to run now. The others are settled here: a record put at the
   * end of the lane, in one transaction, is acknowledged after its commit; a parked key's head
   * delivered again (its process died between the dead letter's commit and the acknowledgement) is
   * acknowledged as it is, still dead. On a broker that orders by key, one statement when a batch
   * has records with a key, none without, and only the records of a parked key or a key still in
   * the lane are diverted; on one that orders by queue, every well-formed message is, in order.
   * Malformed ones run as they are (dead-lettered alone, never run).
   */
  List<Delivery> divert(Settlement settlement, List<Delivery> held) {
    return switch (mode) {
      case DRAIN_ONLY -> held;
      case PARKED_KEYS -> divertParked(settlement, held);
      case EVERY_MESSAGE -> divertAll(settlement, held);
    };
  }

  private List<Delivery> divertAll(Settlement settlement, List<Delivery> held) {
    List<Delivery> run = new ArrayList<>();
    List<Delivery> diverted = new ArrayList<>(held.size());
    for (Delivery d : held) {
      (d.isMalformed() ? run : diverted).add(d);
    }
    if (!diverted.isEmpty()) {
      try (Connection c = context.dataSource().getConnection()) {
        enqueue(c, diverted);
      } catch (SQLException e) {
        throw new StoreException("consumer " + config.consumerId() + " key lane", e);
      }
      laneQueue.wake();
      settlement.acknowledgeUnrun(diverted);
    }
    return run;
  }

  private List<Delivery> divertParked(Settlement settlement, List<Delivery> held) {
    Set<String> keys = new LinkedHashSet<>();
    for (Delivery d : held) {
      if (!d.isMalformed() && d.event().key() != null) {
        keys.add(d.event().key());
      }
    }
    if (keys.isEmpty()) {
      return held;
    }
    List<Delivery> run = new ArrayList<>(held.size());
    List<Delivery> diverted = new ArrayList<>();
    List<Delivery> heads = new ArrayList<>();
    try (Connection c = context.dataSource().getConnection()) {
      Map<String, String> hits = queue.laneKeys(c, config.destination(), config.consumerId(), keys);
      for (Delivery d : held) {
        String head = d.isMalformed() ? null : hits.get(d.event().key());
        if (head == null) {
          run.add(d);
        } else {
          (head.equals(d.event().id().value()) ? heads : diverted).add(d);
        }
      }
      if (!diverted.isEmpty()) {
        enqueue(c, diverted);
      }
    } catch (SQLException e) {
      throw new StoreException("consumer " + config.consumerId() + " key lane", e);
    }
    heads.addAll(diverted);
    settlement.acknowledgeUnrun(heads);
    return run;
  }

  /** Writes {@code diverted} at the end of the lane, in order, in one transaction on {@code c}. */
  private void enqueue(Connection c, List<Delivery> diverted) throws SQLException {
    Instant now = context.clock().instant();
    List<Event> events = new ArrayList<>(diverted.size());
    diverted.forEach(d -> events.add(d.event()));
    c.setAutoCommit(false);
    try {
      for (int written : queue.enqueueInLane(c, events, config.consumerId(), now)) {
        if (written != 1 && written != java.sql.Statement.SUCCESS_NO_INFO) {
          throw new IllegalStateException(
              "consumer " + config.consumerId() + " has no lane on " + config.destination());
        }
      }
      c.commit();
    } catch (SQLException | RuntimeException e) {
      Jdbc.rollbackQuietly(c);
      throw e;
    }
  }

  /**
   * In a group's transaction, after its handlers ran: parks the key of each delivery it
   * dead-lettered, in that transaction, so that the key's next record (handed out after the
   * acknowledgement) finds it parked.
   */
  void park(Connection c, List<HandledDelivery> handled) throws SQLException {
    if (mode != Mode.PARKED_KEYS) {
      return;
    }
    for (HandledDelivery h : handled) {
      if (h.outcome() == Outcome.DEAD && h.event().event().key() != null) {
        queue.parkBrokerHead(c, config.consumerId(), h.event().event(), context.clock().instant());
      }
    }
  }

  /** The lane's consumer is part of its broker consumer: nothing of its own to count or close. */
  private static final class Unmanaged implements ConsumerContext.Lifecycle {
    @Override
    public void starting(dev.once.Consumer consumer, int threads) {}

    @Override
    public void started(dev.once.Consumer consumer) {}

    @Override
    public void stopped(dev.once.Consumer consumer) {}
  }
}
