package dev.once.internal.consumer;

import dev.once.ConfigurationException;
import dev.once.ConsumerConfig;
import dev.once.Outcome;
import dev.once.StoreException;
import dev.once.internal.Jdbc;
import dev.once.jdbc.QueueDialect;
import dev.once.spi.Delivery;
import dev.once.spi.InDatabaseAck;
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
 * The key lane of an ordered consumer on a broker (docs/ORDERING.md, "Ordered on a broker"). The
 * broker hands a key's records out one at a time; what it cannot do is keep a parked key's later
 * records. So: a dead-lettered record parks its key in the transaction that writes its dead letter
 * ({@link #park}); before a batch runs, one statement finds which of its keys are parked or still
 * have rows in the lane, and those records are diverted into the table queue of Once's own database
 * ({@code once_queue}, in key order) and acknowledged after that commit ({@link #divert}); the lane
 * is drained by a table-queue consumer of the same group ({@link #drain}), with the ordered claim
 * and the ordered acknowledgement, after a replay or a discard of the head.
 */
final class Lane {
  private final ConsumerContext context;
  private final ConsumerConfig config;
  private final QueueDialect queue;
  private final LaneQueue laneQueue;

  /** False: the group was ordered once and is not now; its lane is drained, nothing diverted. */
  private final boolean ordered;

  /** The consumer of the lane: one worker on the group's rows of the table queue, in key order. */
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
      return hasLane(context, config) ? new Lane(context, config, false) : null;
    }
    if (!context.dialect().queue().keepsLanes()) {
      throw new ConfigurationException(
          "consumer.ordered",
          "true is refused for consumer '"
              + config.consumerId()
              + "' on transport "
              + context.transport().name()
              + ": the parked keys of an ordered consumer on a broker are kept in Once's database,"
              + " and "
              + context.dialect().name()
              + " has no lane for them yet (PostgreSQL has)");
    }
    return new Lane(context, config, true);
  }

  /**
   * Whether an unordered consumer's group still has a lane from when it was ordered: then it drains
   * it (its parked keys wait for an operator as before, and a replay of one goes into the lane),
   * and diverts nothing.
   */
  private static boolean hasLane(ConsumerContext context, ConsumerConfig config) {
    QueueDialect queue = context.dialect().queue();
    if (!queue.keepsLanes()) {
      return false;
    }
    try (Connection c = context.dataSource().getConnection()) {
      return queue.hasLane(c, config.destination(), config.consumerId());
    } catch (SQLException e) {
      throw new StoreException("consumer " + config.consumerId() + " key lane", e);
    }
  }

  private Lane(ConsumerContext context, ConsumerConfig config, boolean ordered) {
    this.context = context;
    this.config = config;
    this.ordered = ordered;
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
                1,
                config.batchSize(),
                config.idleWait(),
                config.retry(),
                config.batchLinger(),
                true));
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
   * Of {@code held}, the deliveries to run now. The others are settled here: a record of a key that
   * is parked or still has rows in the lane is put at the end of the lane, in one transaction, and
   * acknowledged after its commit; a parked key's head delivered again (its process died between
   * the dead letter's commit and the acknowledgement) is acknowledged as it is, still dead. One
   * statement when a batch has records with a key, none without; malformed ones run as they are
   * (dead-lettered alone, never run).
   */
  List<Delivery> divert(Settlement settlement, List<Delivery> held) {
    if (!ordered) {
      return held;
    }
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

  private void enqueue(Connection c, List<Delivery> diverted) throws SQLException {
    Instant now = context.clock().instant();
    c.setAutoCommit(false);
    try {
      for (Delivery d : diverted) {
        if (queue.enqueueInLane(c, d.event(), config.consumerId(), now) != 1) {
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
    if (!ordered) {
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
