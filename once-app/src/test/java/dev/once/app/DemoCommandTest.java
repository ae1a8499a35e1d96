package dev.once.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The command as a user runs it: exit codes, the JSON report, one-line errors. */
class DemoCommandTest {

  record Run(int exit, String out, String err) {}

  static synchronized Run run(String... args) {
    PrintStream oldOut = System.out;
    PrintStream oldErr = System.err;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    try {
      System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
      System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
      int exit = Main.run(args);
      return new Run(
          exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    } finally {
      System.setOut(oldOut);
      System.setErr(oldErr);
    }
  }

  @Test
  void theDemoOnTheLocalServerProcessesEveryOrderOnceUnderCrashesAndSaysSoInJson()
      throws Exception {
    Run r =
        run(
            "demo",
            "--events",
            "300",
            "--crash-rate",
            "0.1",
            "--seed",
            "7",
            "--json",
            "--db",
            LocalServer.url());
    JsonNode json = new ObjectMapper().readTree(r.out());
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(json.get("ok").asBoolean()).isTrue();
    assertThat(json.get("events").asLong()).isEqualTo(300);
    assertThat(json.get("dispatch_jobs").asLong()).isEqualTo(300);
    assertThat(json.get("notifications").asLong()).isEqualTo(300);
    assertThat(json.get("duplicate_effects").asLong()).isZero();
    assertThat(json.get("lost").asLong()).isZero();
    long crashes = 0;
    for (JsonNode n : json.get("crashes")) {
      crashes += n.asLong();
    }
    assertThat(crashes).as("crashes were injected").isPositive();
    assertThat(json.has("seconds")).isTrue();
  }

  @Test
  void withAnHttpFrontLostAnswersAreRetriedWithTheirKeyAndEachPurchaseIsOneOrderWithOneEvent()
      throws Exception {
    Run r = run(httpDemo("--seed", "11"));
    JsonNode json = new ObjectMapper().readTree(r.out());
    assertThat(r.exit()).as(r.err()).isZero();
    JsonNode http = json.get("http");
    assertThat(http.get("responses_lost_after_commit").asLong()).as("answers lost").isPositive();
    assertThat(http.get("replayed").asLong()).as("retries got the stored answer").isPositive();
    assertThat(http.get("orders").asLong()).isEqualTo(200);
    assertThat(http.get("keys").asLong()).isEqualTo(200);
    assertThat(http.get("purchases").asLong()).isEqualTo(200);
    assertThat(http.get("orders_beyond_first_per_key").asLong()).isZero();
    assertThat(http.get("orders_beyond_first_per_purchase").asLong()).isZero();
    assertThat(http.get("events").asLong()).isEqualTo(200);
    assertThat(json.get("crashes").get("api.after-commit-before-response").asLong()).isPositive();
    assertThat(json.get("duplicate_effects").asLong()).isZero();
  }

  /** The broken twin: a client that retries with a new key orders some purchases twice. */
  @Test
  void aClientRetryingWithANewKeyIsCaughtOrderingPurchasesTwice() throws Exception {
    Run r = run(httpDemo("--seed", "11", "--retry-with-new-key"));
    JsonNode json = new ObjectMapper().readTree(r.out());
    assertThat(r.exit()).as(r.err()).isEqualTo(1);
    assertThat(json.get("ok").asBoolean()).isFalse();
    assertThat(json.get("http").get("orders_beyond_first_per_purchase").asLong()).isPositive();
    assertThat(json.get("problems").toString())
        .contains("purchases ordered more than once through the API");
  }

  private static String[] httpDemo(String... more) {
    java.util.List<String> args =
        new java.util.ArrayList<>(
            java.util.List.of(
                "demo",
                "--events",
                "200",
                "--lost-response-rate",
                "0.2",
                "--timeout",
                "120",
                "--json",
                "--db",
                LocalServer.url(),
                "--schema",
                "once_demo_http"));
    args.addAll(java.util.List.of(more));
    return args.toArray(String[]::new);
  }

  @Test
  void theEmbeddedDemoNeedsNoServerAndEndsWithAnOkVerdict() {
    Run r = run("demo", "--events", "150", "--crash-rate", "0.1", "--seed", "3");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).contains("embedded PostgreSQL", "verdict                  OK");
    assertThat(r.err()).contains("orders 150/150");
  }

  @Test
  void aSecondDemoOnTheSameSchemaIsRefusedInsteadOfWipingTheFirst() throws Exception {
    String url = LocalServer.url();
    try (java.sql.Connection first = java.sql.DriverManager.getConnection(url);
        java.sql.Statement s = first.createStatement()) {
      s.execute("CREATE SCHEMA IF NOT EXISTS once_demo");
      s.execute("SET search_path TO once_demo"); // the demo's namespace, whatever --db names
      s.execute("SELECT pg_advisory_lock(hashtext(current_schema() || '.once_demo_run'))");
      Run r = run("demo", "--events", "10", "--db", url);
      assertThat(r.exit()).isEqualTo(2);
      assertThat(r.err()).contains("once: another once demo is running on");
    }
  }

  @Test
  void anUnreachableDatabaseIsOneLineAndExitTwo() {
    Run r =
        run(
            "demo",
            "--events",
            "10",
            "--db",
            "jdbc:postgresql://127.0.0.1:1/none?user=x&password=secret");
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err().strip().lines())
        .anyMatch(l -> l.startsWith("once: cannot connect to jdbc:postgresql://127.0.0.1:1/none"));
    assertThat(r.err()).doesNotContain("secret").doesNotContain("\tat ");
  }

  @Test
  void badOptionsNameTheOptionAndTheValue() {
    assertThat(run("demo", "--events", "0").err())
        .contains("--events must be between 1 and 10000000, was 0");
    assertThat(run("demo", "--crash-rate", "2").err())
        .contains("--crash-rate must be between 0 and 0.5, was 2.0");
    assertThat(run("demo", "--db", "mysql://x").err())
        .contains("--db must be a PostgreSQL or MariaDB/MySQL JDBC URL", "was 'mysql://x'");
    assertThat(run("demo", "--transport", "carrier-pigeon", "--db", LocalServer.url()).err())
        .contains("--transport must be 'table', 'rabbitmq'", "was 'carrier-pigeon'");
  }

  @Test
  void aTransportTheDemoCannotRunIsRefusedBeforeTheDatabaseIsOpened() {
    // a database nobody listens on: reaching it would end in "cannot connect" instead
    String unreachable = "jdbc:postgresql://127.0.0.1:1/none?user=x";
    Run bad = run("demo", "--transport", "carrier-pigeon", "--db", unreachable);
    assertThat(bad.exit()).isEqualTo(2);
    assertThat(bad.err())
        .contains("--transport must be 'table', 'rabbitmq'", "was 'carrier-pigeon'")
        .doesNotContain("cannot connect")
        .doesNotContain("once demo: "); // the run's banner: nothing was started
    Run unordered = run("demo", "--ordered", "--transport", "sqs", "--db", unreachable);
    assertThat(unordered.exit()).isEqualTo(2);
    assertThat(unordered.err())
        .contains(
            "--ordered needs a transport that keeps a key's order", "use --transport sqs-fifo")
        .doesNotContain("cannot connect");
  }

  @Test
  void schemaPrintShowsEveryOnceTable() {
    Run r = run("schema", "print");
    assertThat(r.exit()).isZero();
    assertThat(r.out())
        .contains("CREATE TABLE once_outbox", "CREATE TABLE once_inbox", "CREATE TABLE once_queue");
  }
}
