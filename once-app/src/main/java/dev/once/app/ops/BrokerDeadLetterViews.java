package dev.once.app.ops;

import dev.once.BrokerMove;
import dev.once.DeadLetters;
import dev.once.Redaction;
import dev.once.app.common.TransportOptions;
import dev.once.app.common.UserError;
import dev.once.rabbitmq.RabbitTransport;
import dev.once.spi.BrokerDeadLetter;
import dev.once.spi.BrokerDeadLetters;
import dev.once.spi.Transport;
import dev.once.sqs.SqsTransport;
import java.io.PrintStream;
import java.util.List;
import java.util.Optional;

/**
 * {@code once dead-letters list --broker} and {@code once dead-letters move}: what the broker
 * dead-lettered on its own, per consumer group, shown as ids, reasons and payload size and hash.
 */
final class BrokerDeadLetterViews {
  /** How often a long move says how far it got. */
  static final long PROGRESS_EVERY = 1_000;

  private BrokerDeadLetterViews() {}

  static void requireBroker(TransportOptions transport, String what) {
    if (!transport.keepsBrokerDeadLetters()) {
      throw new UserError(
          what
              + " needs --transport rabbitmq, sqs or sqs-fifo: the "
              + transport.name()
              + " transport keeps no dead letters of its own (Once's are in 'once dead-letters"
              + " list')");
    }
  }

  /** The dead-letter queue's name where the transport has one, for people. */
  static String place(Transport transport, String destination, String group) {
    Optional<String> sqs =
        transport.capability(SqsTransport.class).map(q -> sqsPlace(q, destination, group));
    return transport
        .capability(RabbitTransport.class)
        .map(r -> r.queueName(destination, group) + ".dead-letter")
        .or(() -> sqs)
        .orElse("the broker's dead letters of " + group);
  }

  private static String sqsPlace(SqsTransport sqs, String destination, String group) {
    return sqs.deadLetterQueueName(destination, group)
        .orElse(sqs.settings().queueName(destination, group) + "'s redrive target (it has none)");
  }

  static void list(
      PrintStream out, DeadLetters d, Transport t, List<BrokerGroups.Group> groups, int limit) {
    out.printf(
        "%-12s %-28s %-16s %-15s %-6s %-20s %s%n",
        "CONSUMER", "EVENT", "TYPE", "REASON", "DEATHS", "DEAD AT", "PAYLOAD");
    StringBuilder totals = new StringBuilder();
    groups.forEach(
        g -> {
          String group = g.consumer();
          String destination = g.destination();
          long count = brokerDeadLetters(t, destination, group);
          List<BrokerDeadLetter> seen =
              count == 0 ? List.of() : d.peekBroker(destination, group, limit);
          seen.forEach(m -> row(out, group, m));
          totals.append(
              String.format(
                  "%s: %d in %s, %d shown%n",
                  group, count, place(t, destination, group), seen.size()));
        });
    out.print(totals);
  }

  private static void row(PrintStream out, String group, BrokerDeadLetter m) {
    var event = m.delivery().event();
    out.printf(
        "%-12s %-28s %-16s %-15s %-6d %-20s %s%s%n",
        group,
        event.id(),
        event.type(),
        m.reason() == null ? "-" : m.reason(),
        m.deaths(),
        m.deadAt() == null ? "-" : m.deadAt().toString().substring(0, 19),
        Redaction.summary(event.payload()),
        m.delivery().isMalformed() ? " (malformed: " + m.delivery().malformed() + ")" : "");
  }

  static void move(
      PrintStream out,
      PrintStream err,
      DeadLetters d,
      Transport t,
      List<BrokerGroups.Group> groups,
      int limit) {
    groups.forEach(
        g -> {
          String group = g.consumer();
          String destination = g.destination();
          long before = brokerDeadLetters(t, destination, group);
          String place = place(t, destination, group);
          BrokerMove done =
              before == 0
                  ? new BrokerMove(0, 0, 0)
                  : d.moveFromBroker(
                      destination,
                      group,
                      limit,
                      m -> {
                        if (m.taken() % PROGRESS_EVERY == 0) {
                          err.printf(
                              "once: %s: %d of %d taken from %s%n",
                              group, m.taken(), Math.min(before, limit), place);
                        }
                      });
          long left = brokerDeadLetters(t, destination, group);
          out.printf(
              "%s: moved %d into Once's dead letters (%d malformed, %d already there); %d left in"
                  + " %s%n",
              group, done.moved(), done.malformed(), done.alreadyThere(), left, place);
          if (done.moved() > 0) {
            out.printf("  list them: once dead-letters list --consumer %s%n", group);
          }
        });
  }

  /** What the broker dead-lettered itself for {@code group}; 0 where it keeps none. */
  private static long brokerDeadLetters(Transport t, String destination, String group) {
    return t.capability(BrokerDeadLetters.class).map(b -> b.count(destination, group)).orElse(0L);
  }
}
