package dev.once.app.ops;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.once.WorkloadStatus;
import dev.once.WorkloadStatus.Backlog;
import dev.once.app.Database;
import dev.once.app.Migrations;
import java.io.PrintStream;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code once status}: what waits where, and for how long, read from the database. */
@Command(
    name = "status",
    mixinStandardHelpOptions = true,
    description =
        "Shows the outbox, the table queue, the retry backlog and the open dead letters: how many"
            + " wait and the age of the oldest.")
public final class StatusCommand implements Callable<Integer> {
  @Option(names = "--db", description = "JDBC URL; default $ONCE_DB, else the embedded database.")
  String db;

  @Option(names = "--json", description = "Print one JSON object on stdout.")
  boolean json;

  @Override
  public Integer call() throws Exception {
    try (Database database = Database.openAny(db, 2)) {
      Migrations.requirePresent(database.dataSource());
      WorkloadStatus s = WorkloadStatus.read(database.dataSource());
      if (json) {
        System.out.println(new ObjectMapper().writeValueAsString(toJson(s)));
      } else {
        print(System.out, s, database.description());
      }
      return 0;
    }
  }

  static Map<String, Object> toJson(WorkloadStatus s) {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("at", s.at().toString());
    json.put("outbox", rows(s.outbox(), "destination"));
    json.put("queue", rows(s.queue(), "consumer"));
    json.put("retries", rows(s.retries(), "consumer"));
    json.put("dead_letters", rows(s.deadLetters(), "consumer"));
    return json;
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
          what.equals("outbox") ? Long.toString(b.parked()) : "",
          what.equals("dead") ? "" : age(b.oldestAge()));
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
