package dev.once.app.ops;

import dev.once.app.common.TransportOptions;
import dev.once.app.common.UserError;
import dev.once.scenario.WarehouseTables;
import dev.once.spi.Transport;
import dev.once.sqs.SqsTransport;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * {@code once status --transport sqs}: each group queue's approximate counts as SQS gives them in
 * its attributes (visible, in flight, delayed; they lag by up to a minute). SQS tells no age of the
 * oldest message outside CloudWatch ({@code ApproximateAgeOfOldestMessage}).
 *
 * @param error why the queue could not be read, or null
 */
record SqsQueueStatus(
    String consumer, String destination, Map<String, String> counts, String error) {

  /**
   * Consumer group → destination: those of {@code --group DESTINATION:GROUP}, else the demo's. SQS
   * lists queues by name only, so the groups Once's tables record are not looked for here.
   */
  static Map<String, String> groups(BrokerGroups named) {
    if (named.groups == null || named.groups.isEmpty()) {
      return new java.util.TreeMap<>(WarehouseTables.CONSUMER_DESTINATIONS);
    }
    Map<String, String> out = new java.util.TreeMap<>();
    for (String g : named.groups) {
      int colon = g.indexOf(':');
      if (colon <= 0 || colon == g.length() - 1 || g.indexOf(':', colon + 1) >= 0) {
        throw new UserError(
            "--group must be DESTINATION:GROUP, e.g. orders:billing, was '" + g + "'");
      }
      out.put(g.substring(colon + 1), g.substring(0, colon));
    }
    return out;
  }

  /** The counts of every group in {@code groups} (group → destination). */
  static List<SqsQueueStatus> read(
      TransportOptions options, Map<String, String> groups, DataSource dataSource) {
    try (Transport transport = options.open(dataSource, Duration.ofSeconds(30))) {
      SqsTransport sqs = transport.capability(SqsTransport.class).orElseThrow();
      List<SqsQueueStatus> out = new ArrayList<>();
      groups.forEach(
          (group, destination) -> {
            try {
              out.add(
                  new SqsQueueStatus(
                      group, destination, sqs.queueAttributes(destination, group), null));
            } catch (RuntimeException e) {
              out.add(new SqsQueueStatus(group, destination, Map.of(), e.getMessage()));
            }
          });
      return out;
    }
  }

  Map<String, Object> toJson() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("consumer", consumer);
    m.put("destination", destination);
    m.put("visible", count("ApproximateNumberOfMessages"));
    m.put("in_flight", count("ApproximateNumberOfMessagesNotVisible"));
    m.put("delayed", count("ApproximateNumberOfMessagesDelayed"));
    if (error != null) {
      m.put("error", error);
    }
    return m;
  }

  private Long count(String attribute) {
    String v = counts.get(attribute);
    return v == null ? null : Long.valueOf(v);
  }

  static void print(PrintStream out, List<SqsQueueStatus> queues) {
    out.printf(
        "  %-10s %-22s %10s %10s %10s%n", "sqs", "consumer", "visible", "in flight", "delayed");
    for (SqsQueueStatus q : queues) {
      if (q.error() != null) {
        out.printf("  %-10s %-22s not read: %s%n", "sqs", q.consumer(), q.error());
      } else {
        out.printf(
            "  %-10s %-22s %10s %10s %10s%n",
            "sqs",
            q.consumer(),
            shown(q.count("ApproximateNumberOfMessages")),
            shown(q.count("ApproximateNumberOfMessagesNotVisible")),
            shown(q.count("ApproximateNumberOfMessagesDelayed")));
      }
    }
  }

  private static String shown(Long n) {
    return n == null ? "-" : n.toString();
  }
}
