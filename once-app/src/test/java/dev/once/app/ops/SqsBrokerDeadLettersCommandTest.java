package dev.once.app.ops;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.app.ops.DeadLettersCommandTest.Run;
import dev.once.sqs.SqsTransport;
import dev.once.sqs.embedded.EmbeddedSqs;
import dev.once.test.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * What SQS moved to the dead-letter queue of a group queue's redrive policy, as an operator meets
 * it: counted by {@code once status --transport sqs}, looked at by {@code once dead-letters list
 * --broker} (ids and payload size and hash, never a value) and moved by {@code once dead-letters
 * move} into Once's dead letters. ElasticMQ in the test JVM, a schema of the test's own.
 */
class SqsBrokerDeadLettersCommandTest {
  private static final String SECRET = "4111 1111 1111 1111";
  private static EmbeddedSqs server;
  private static SqsAsyncClient sqs;
  private static String schema;
  private static String url;

  @BeforeAll
  static void setUp() throws Exception {
    server = EmbeddedSqs.start();
    sqs =
        SqsAsyncClient.builder()
            .endpointOverride(server.endpoint())
            .region(software.amazon.awssdk.regions.Region.US_EAST_1)
            .credentialsProvider(
                StaticCredentialsProvider.create(AwsBasicCredentials.create("x", "x")))
            .build();
    schema = "cli_sqsdl_" + ProcessHandle.current().pid();
    exec(TestDatabase.embeddedUrl(), "CREATE SCHEMA " + schema);
    url = TestDatabase.embeddedUrl() + "&currentSchema=" + schema;
    assertThat(run("schema", "apply", "--db", url, "--schema", schema).exit()).isZero();
    exec(url, "INSERT INTO once_inbox (consumer_id, event_id) VALUES ('warehouse', 'e1')");
    exec(
        url,
        "INSERT INTO once_outbox (event_id, destination, event_type, payload, key_partition,"
            + " sent_at) VALUES ('o1', 'orders', 'OrderPaid', '\\x7b7d', 0, now())");
    // Given: the group queue orders__warehouse with a redrive policy after one receive, and in its
    // dead-letter queue a Once event and a foreign message, each received once too often
    try (SqsTransport t = SqsTransport.builder().client(sqs).build()) {
      t.declare("orders", "warehouse");
    }
    String group = sqs.getQueueUrl(b -> b.queueName("orders__warehouse")).join().queueUrl();
    String dlq = sqs.createQueue(b -> b.queueName("orders__warehouse__dlq")).join().queueUrl();
    String arn =
        sqs.getQueueAttributes(b -> b.queueUrl(dlq).attributeNames(QueueAttributeName.QUEUE_ARN))
            .join()
            .attributes()
            .get(QueueAttributeName.QUEUE_ARN);
    sqs.setQueueAttributes(
            b ->
                b.queueUrl(group)
                    .attributes(
                        Map.of(
                            QueueAttributeName.REDRIVE_POLICY,
                            "{\"maxReceiveCount\":\"1\",\"deadLetterTargetArn\":\"" + arn + "\"}")))
        .join();
    send(
        group,
        "{\"card\":\"" + SECRET + "\"}",
        Map.of("once-event-id", "order-paid:7", "once-type", "OrderPaid"));
    send(group, SECRET, Map.of("x", "y"));
    long deadline = System.nanoTime() + 20_000_000_000L;
    while (visible(dlq) < 2) {
      assertThat(System.nanoTime()).as("moved to the DLQ within 20 s").isLessThan(deadline);
      sqs.receiveMessage(b -> b.queueUrl(group).maxNumberOfMessages(10).visibilityTimeout(0))
          .join();
    }
  }

  @AfterAll
  static void tearDown() throws SQLException {
    exec(TestDatabase.embeddedUrl(), "DROP SCHEMA " + schema + " CASCADE");
    sqs.close();
    server.close();
  }

  @Test
  void statusCountsListShowsAndMoveTakesWhatSqsDeadLettered() throws Exception {
    Run status = run("status", "--db", url, "--schema", schema, "--transport", "sqs", endpoint());
    assertThat(status.exit()).as(status.err()).isZero();
    assertThat(status.out()).containsPattern("broker +warehouse \\(orders\\) +2\\n");

    Run list =
        run(
            "dead-letters",
            "list",
            "--broker",
            "--db",
            url,
            "--schema",
            schema,
            "--transport",
            "sqs",
            endpoint());
    assertThat(list.exit()).as(list.err()).isZero();
    assertThat(list.out())
        .containsPattern("warehouse +order-paid:7 .* maxReceiveCount +1 +- ")
        .contains("(malformed: once-event-id missing)")
        .contains("warehouse: 2 in orders__warehouse__dlq, 2 shown")
        .doesNotContain("4111");

    Run move =
        run(
            "dead-letters",
            "move",
            "--db",
            url,
            "--schema",
            schema,
            "--transport",
            "sqs",
            endpoint());
    assertThat(move.exit()).as(move.err()).isZero();
    assertThat(move.out())
        .contains(
            "warehouse: moved 2 into Once's dead letters (1 malformed, 0 already there); 0 left"
                + " in orders__warehouse__dlq");
    assertThat(count("SELECT count(*) FROM once_dead_letter")).isEqualTo(2);
  }

  private static String endpoint() {
    return "--sqs-endpoint=" + server.endpoint();
  }

  private static long visible(String queue) {
    return Long.parseLong(
        sqs.getQueueAttributes(
                b ->
                    b.queueUrl(queue)
                        .attributeNames(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES))
            .join()
            .attributes()
            .get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES));
  }

  private static void send(String queue, String body, Map<String, String> attributes) {
    Map<String, MessageAttributeValue> a = new java.util.HashMap<>();
    attributes.forEach(
        (k, v) ->
            a.put(k, MessageAttributeValue.builder().dataType("String").stringValue(v).build()));
    sqs.sendMessage(b -> b.queueUrl(queue).messageBody(body).messageAttributes(a)).join();
  }

  private static long count(String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static void exec(String jdbcUrl, String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(jdbcUrl);
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  private static Run run(String... args) {
    return DeadLettersCommandTest.run(args);
  }
}
