package dev.once.rabbitmq.internal;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ShutdownSignalException;
import dev.once.BrokerUnavailableException;
import dev.once.rabbitmq.RabbitConfig;
import dev.once.rabbitmq.TopologyException;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;

/**
 * Declares exchanges, queues and bindings, idempotently: a declaration of what exists with the same
 * arguments is a no-op; with other arguments the broker refuses it and the error says so.
 */
public final class Topology {
  private final Connections connections;
  private final RabbitConfig config;
  private final Names names;

  /**
   * The destinations whose exchange is declared, each with its exchange's name: a relay looks one
   * up per message, and the name's check and concatenation are done once.
   */
  private final Map<String, String> knownExchanges = new ConcurrentHashMap<>();

  /** Queues of groups consumed in queue order: declared with a single active consumer. */
  /** The queues declared with a single active consumer, each with the batch its receiver takes. */
  private final Map<String, Integer> singleActive = new ConcurrentHashMap<>();

  public Topology(Connections connections, RabbitConfig config) {
    this.connections = connections;
    this.config = config;
    this.names = new Names(config.namePrefix());
  }

  public Names names() {
    return names;
  }

  /**
   * Declares the group's queue, from now on, with {@code x-single-active-consumer}: one receiver at
   * a time gets its messages, in queue order (an ordered consumer's key lane is fed that way); it
   * is asked for up to {@code batch} deliveries at a time.
   */
  public void singleActiveConsumer(String destination, String group, int batch) {
    singleActive.merge(names.queue(destination, group), batch, Math::max);
  }

  /**
   * How many unacknowledged deliveries the broker hands a receiver of {@code queue}: the prefetch,
   * or, for a queue with a single active consumer, at least the batch that one receiver is asked
   * for (the others stand by with nothing).
   */
  public int prefetch(String queue) {
    return Math.max(config.prefetch(), singleActive.getOrDefault(queue, 0));
  }

  /** The exchange of the destination, a quorum queue for the group, its dead-letter path. */
  public void declare(String destination, String group) {
    String exchange = names.exchange(destination);
    String queue = names.queue(destination, group);
    String dlx = names.deadLetterExchange();
    String dlq = names.deadLetterQueue(queue);
    Channel ch = connections.publishChannel();
    try {
      step(exchange, () -> ch.exchangeDeclare(exchange, BuiltinExchangeType.TOPIC, true));
      step(dlx, () -> ch.exchangeDeclare(dlx, BuiltinExchangeType.DIRECT, true));
      step(dlq, () -> ch.queueDeclare(dlq, true, false, false, Map.of("x-queue-type", "quorum")));
      step(dlq, () -> ch.queueBind(dlq, dlx, queue));
      step(queue, () -> ch.queueDeclare(queue, true, false, false, queueArguments(queue)));
      step(queue, () -> ch.queueBind(queue, exchange, "#"));
    } finally {
      closeQuietly(ch);
    }
    knownExchanges.put(destination, exchange);
  }

  private Map<String, Object> queueArguments(String queue) {
    Map<String, Object> args = new HashMap<>();
    args.put("x-queue-type", "quorum");
    args.put("x-delivery-limit", config.deliveryLimit());
    args.put("x-dead-letter-exchange", names.deadLetterExchange());
    args.put("x-dead-letter-routing-key", queue);
    if (config.singleActiveConsumer() || singleActive.containsKey(queue)) {
      args.put("x-single-active-consumer", true);
    }
    return args;
  }

  /**
   * Makes sure the destination's exchange exists before publishing to it: a publish to a missing
   * exchange would close the channel and fail the whole batch. Declared once per transport.
   */
  public String exchangeFor(String destination) {
    String known = knownExchanges.get(destination);
    if (known != null) {
      return known;
    }
    String exchange = names.exchange(destination);
    Channel ch = connections.publishChannel();
    try {
      step(exchange, () -> ch.exchangeDeclare(exchange, BuiltinExchangeType.TOPIC, true));
    } finally {
      closeQuietly(ch);
    }
    knownExchanges.put(destination, exchange);
    return exchange;
  }

  /** Discards the ready messages of a group's queue (not those a receiver holds unacked). */
  public void purge(String destination, String group) {
    String queue = names.queue(destination, group);
    Channel ch = connections.publishChannel();
    try {
      step(queue, () -> ch.queuePurge(queue));
    } finally {
      closeQuietly(ch);
    }
  }

  /** Messages in the group's dead-letter queue; 0 when it does not exist (never declared). */
  public long deadLettered(String destination, String group) {
    String dlq = names.deadLetterQueue(names.queue(destination, group));
    Channel ch = connections.publishChannel();
    try {
      return ch.queueDeclarePassive(dlq).getMessageCount();
    } catch (IOException e) {
      return 0; // 404: not declared, nothing in it
    } finally {
      closeQuietly(ch);
    }
  }

  /**
   * Whether the group's queue exists: a passive declare, which the broker answers with 404 (closing
   * the channel) when it does not; any other failure is one.
   */
  public boolean exists(String destination, String group) {
    String queue = names.queue(destination, group);
    Channel ch = connections.publishChannel();
    try {
      ch.queueDeclarePassive(queue);
      return true;
    } catch (IOException | ShutdownSignalException e) {
      Throwable cause = e instanceof ShutdownSignalException ? e : e.getCause();
      if (cause instanceof ShutdownSignalException s
          && !s.isHardError()
          && s.getReason() instanceof AMQP.Channel.Close close
          && close.getReplyCode() == 404) {
        return false;
      }
      throw failure(queue, e);
    } finally {
      closeQuietly(ch);
    }
  }

  /** After a channel was closed for a missing exchange: declare them again on next use. */
  public void forgetExchanges() {
    knownExchanges.clear();
  }

  private interface Declaration {
    Object apply() throws IOException;
  }

  private void step(String name, Declaration declaration) {
    try {
      declaration.apply();
    } catch (IOException e) {
      throw failure(name, e);
    } catch (ShutdownSignalException e) {
      throw failure(name, e);
    }
  }

  private RuntimeException failure(String name, Exception e) {
    Throwable cause = e instanceof ShutdownSignalException ? e : e.getCause();
    if (cause instanceof ShutdownSignalException s
        && !s.isHardError()
        && s.getReason() instanceof AMQP.Channel.Close close) {
      String hint =
          close.getReplyCode() != 406
              ? ""
              : close.getReplyText().contains("x-delivery-limit")
                  ? "; it exists with another delivery limit (Once declared 20 before 1 000 became"
                      + " its default): keep it with deliveryLimit(<its limit>), knowing that every"
                      + " return counts, crashes' too, or delete the queue once drained and let"
                      + " Once declare it with "
                      + config.deliveryLimit()
                  : "; it exists with other arguments: delete it or declare it with the same"
                      + " settings";
      return new TopologyException(
          "'" + name + "'",
          "was refused: " + close.getReplyCode() + " " + close.getReplyText() + hint,
          e);
    }
    return new BrokerUnavailableException(
        "RabbitMQ at " + config.safeUri(), "failed while declaring '" + name + "': " + e, e);
  }

  static void closeQuietly(Channel ch) {
    try {
      if (ch.isOpen()) {
        ch.close();
      }
    } catch (IOException | TimeoutException | RuntimeException ignored) {
      // the channel is gone either way
    }
  }
}
