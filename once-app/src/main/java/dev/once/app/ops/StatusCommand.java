package dev.once.app.ops;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.once.WorkloadStatus;
import dev.once.WorkloadStatus.Backlog;
import dev.once.app.common.Database;
import dev.once.app.common.DatabaseOptions;
import dev.once.app.common.Migrations;
import dev.once.app.common.TransportOptions;
import dev.once.spi.BrokerDeadLetters;
import dev.once.spi.Transport;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import javax.sql.DataSource;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code once status}: what waits where, and for how long, read from the database. */
@Command(
    name = "status",
    mixinStandardHelpOptions = true,
    description = {
      "Shows the outbox, the table queue, the retry backlog and the open dead letters: how many"
          + " wait and the age of the oldest.",
      "With --transport rabbitmq, also what RabbitMQ dead-lettered on its own per consumer group"
          + " (<queue>.dead-letter: rejects, the delivery limit), outside Once's dead letters.",
      "With --transport sqs or sqs-fifo, also each group queue's approximate visible, in-flight"
          + " and delayed messages, from the queue's attributes, and what SQS moved to the"
          + " dead-letter queue of a group queue's redrive policy."
    })
public final class StatusCommand implements Callable<Integer> {
  @Mixin DatabaseOptions db = new DatabaseOptions();

  @Option(names = "--json", description = "Print one JSON object on stdout.")
  boolean json;

  @Mixin TransportOptions transport;

  @Mixin BrokerGroups groups;

  @Override
  public Integer call() throws Exception {
    try (Database database = db.openExisting(2)) {
      Migrations.requirePresent(database.dataSource());
      WorkloadStatus s = WorkloadStatus.read(database.dataSource());
      List<String> notes = new ArrayList<>();
      List<BrokerCount> broker =
          transport.keepsBrokerDeadLetters()
              ? BrokerCount.read(transport, groups, database.dataSource(), notes)
              : null;
      List<SqsQueueStatus> sqs =
          transport.name().startsWith("sqs")
              ? SqsQueueStatus.read(transport, SqsQueueStatus.groups(groups), database.dataSource())
              : null;
      if (json) {
        Map<String, Object> out = toJson(s, broker);
        if (sqs != null) {
          out.put("sqs_queues", sqs.stream().map(SqsQueueStatus::toJson).toList());
        }
        System.out.println(new ObjectMapper().writeValueAsString(out));
      } else {
        print(System.out, s, database.description());
        printBroker(System.out, broker);
        if (sqs != null) {
          SqsQueueStatus.print(System.out, sqs);
        }
      }
      notes.forEach(n -> System.err.println("once: " + n));
      boolean unread =
          (broker != null && broker.stream().anyMatch(b -> b.error() != null))
              || (sqs != null && sqs.stream().anyMatch(q -> q.error() != null));
      return unread ? 1 : 0;
    }
  }

  /** {@code broker}: null when the transport keeps no dead letters of its own (key left out). */
  static Map<String, Object> toJson(WorkloadStatus s, List<BrokerCount> broker) {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("at", s.at().toString());
    json.put("outbox", rows(s.outbox(), "destination"));
    json.put("queue", rows(s.queue(), "consumer"));
    json.put("retries", rows(s.retries(), "consumer"));
    json.put("dead_letters", rows(s.deadLetters(), "consumer"));
    json.put("parked_keys", rows(s.parkedKeys(), "consumer"));
    if (broker != null) {
      json.put("broker_dead_letters", broker.stream().map(BrokerCount::toJson).toList());
    }
    return json;
  }

  /**
   * What the broker dead-lettered on its own for one consumer group.
   *
   * @param count null when it could not be read
   * @param error why not, or null
   */
  record BrokerCount(String consumer, String destination, Long count, String error) {

    /**
     * The counts of the groups {@code groups} selects; why some were not found to {@code notes}.
     */
    static List<BrokerCount> read(
        TransportOptions options, BrokerGroups groups, DataSource dataSource, List<String> notes) {
      try (Transport transport = options.open(dataSource, Duration.ofSeconds(30))) {
        BrokerGroups.Selection selected;
        try {
          selected = groups.select(null, dataSource, transport);
        } catch (dev.once.app.common.UserError e) {
          throw e;
        } catch (RuntimeException e) { // the broker: the database's status is still worth a look
          return List.of(new BrokerCount("-", null, null, e.getMessage()));
        }
        if (selected.notFoundNote() != null) {
          notes.add(selected.notFoundNote());
        }
        List<BrokerCount> counts = new ArrayList<>();
        selected.groups().forEach(g -> counts.add(read(transport, g.consumer(), g.destination())));
        return counts;
      }
    }

    private static BrokerCount read(Transport transport, String group, String destination) {
      try {
        Long n =
            transport
                .capability(BrokerDeadLetters.class)
                .map(b -> b.count(destination, group))
                .orElse(null);
        return new BrokerCount(group, destination, n, null);
      } catch (RuntimeException e) {
        return new BrokerCount(group, destination, null, e.getMessage());
      }
    }

    Map<String, Object> toJson() {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("consumer", consumer);
      m.put("destination", destination);
      m.put("waiting", count);
      if (error != null) {
        m.put("error", error);
      }
      return m;
    }
  }

  static void printBroker(PrintStream out, List<BrokerCount> broker) {
    if (broker == null) {
      return;
    }
    if (broker.isEmpty()) {
      out.printf("  %-10s %-22s %10s%n", "broker", "-", "-");
    }
    for (BrokerCount b : broker) {
      if (b.error() != null) {
        out.printf(
            "  %-10s %-22s not read: %s%n",
            "broker",
            b.destination() == null ? b.consumer() : b.consumer() + " (" + b.destination() + ")",
            b.error());
      } else {
        out.printf(
            "  %-10s %-22s %10s%n",
            "broker",
            b.destination() == null ? b.consumer() : b.consumer() + " (" + b.destination() + ")",
            b.count() == null ? "-" : b.count());
      }
    }
    out.printf(
        "%n  broker: what the broker dead-lettered on its own (RabbitMQ: <queue>.dead-letter;"
            + " SQS: the redrive policy's%n  dead-letter queue), outside Once's dead letters; look"
            + " with 'once dead-letters list --broker',%n  take them in with 'once dead-letters"
            + " move'.%n");
  }

  private static List<Map<String, Object>> rows(List<Backlog> rows, String key) {
    return rows.stream()
        .map(
            b -> {
              Map<String, Object> m = new LinkedHashMap<>();
              m.put(key, b.name());
              m.put("waiting", b.waiting());
              m.put("parked", b.parked());
              m.put("oldest_age_seconds", b.oldestAge().toMillis() / 1000.0);
              return m;
            })
        .toList();
  }

  static void print(PrintStream out, WorkloadStatus s, String database) {
    out.printf("Once status of %s at %s%n%n", database, s.at());
    out.printf("  %-10s %-22s %10s %8s %14s%n", "WHAT", "NAME", "WAITING", "PARKED", "OLDEST");
    section(out, "outbox", s.outbox());
    section(out, "queue", s.queue());
    section(out, "retries", s.retries());
    section(out, "dead", s.deadLetters());
    if (!s.parkedKeys().isEmpty()) { // ordered consumers only
      section(out, "keys", s.parkedKeys());
      out.printf(
          "%n  keys: keys an ordered consumer parked behind a dead letter (PARKED), the events"
              + " waiting behind them%n  (WAITING); 'once dead-letters keys' lists them; replay or"
              + " discard the dead letter to release%n  its key in order.%n");
    }
  }

  private static void section(PrintStream out, String what, List<Backlog> rows) {
    if (rows.isEmpty()) {
      out.printf("  %-10s %-22s %10d %8s %14s%n", what, "-", 0, "", "-");
    }
    for (Backlog b : rows) {
      out.printf(
          "  %-10s %-22s %10d %8s %14s%n",
          what,
          b.name(),
          b.waiting(),
          what.equals("outbox") || what.equals("keys") ? Long.toString(b.parked()) : "",
          age(b.oldestAge()));
    }
  }

  static String age(Duration d) {
    long ms = d.toMillis();
    if (ms < 1000) {
      return ms + " ms";
    }
    if (ms < 120_000) {
      return String.format("%.1f s", ms / 1000.0);
    }
    if (ms < 7_200_000) {
      return (ms / 60_000) + " min";
    }
    return (ms / 3_600_000) + " h";
  }
}
