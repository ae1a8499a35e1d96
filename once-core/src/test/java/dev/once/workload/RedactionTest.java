package dev.once.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.once.Consumer;
import dev.once.DeadLetter;
import dev.once.DeadLetterFilter;
import dev.once.OnceListener;
import dev.once.ReceivedEvent;
import dev.once.Redaction;
import dev.once.test.TestDatabase;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class RedactionTest {
  private static final String SECRET = "4111111111111111";
  private static final String PAYLOAD =
      "{\"orderId\":9,\"card\":\"" + SECRET + "\",\"holder\":\"Ada Lovelace\"}";

  @Test
  void aSecretInThePayloadAppearsInNoLogLineStoredErrorOrExceptionMessage() throws Exception {
    PrintStream err = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    DeadLetter d;
    try (Rig rig = new Rig(TestDatabase.embedded())) {
      Consumer consumer =
          rig.consumer(
              "billing",
              Rig.fast(2),
              (tx, e) -> {
                // the kind of message a parser gives: it quotes the input it choked on
                throw new IllegalArgumentException(
                    "card " + SECRET + " of Ada Lovelace rejected in " + e.payloadText());
              });
      rig.publish("orders", 9, PAYLOAD);
      rig.drain(consumer);
      d = rig.deadLetters().list(DeadLetterFilter.open()).get(0);
      assertThat(
              rig.db.count(
                  "SELECT count(*) FROM once_dead_letter WHERE error_message LIKE ?",
                  "%" + SECRET + "%"))
          .isZero();
      assertThat(rig.db.count("SELECT count(*) FROM once_attempt")).isZero();
    } finally {
      System.setErr(err);
    }
    String logs = captured.toString(StandardCharsets.UTF_8);
    assertThat(logs).contains("dead-lettered event order-paid:9").doesNotContain(SECRET);
    assertThat(d.errorMessage())
        .isEqualTo(
            "card *** of *** rejected in {\"orderId\":9,\"card\":\"***\",\"holder\":\"***\"}");
    assertThat(d.toString()).doesNotContain(SECRET).doesNotContain("Lovelace");
    assertThat(d.event().payloadText()).as("kept for replay").contains(SECRET);
  }

  @Test
  void anErrorOfAHandlerAndAFailingListenerAreLoggedWithoutTheirMessages() {
    PrintStream err = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    OnceListener leaky =
        new OnceListener() {
          @Override
          public void received(List<ReceivedEvent> batch) {
            throw new IllegalStateException("listener saw " + batch.get(0).payloadText());
          }
        };
    try (Rig rig = new Rig(TestDatabase.embedded(), b -> b.listener(leaky))) {
      Consumer consumer =
          rig.consumer(
              "billing",
              Rig.fast(5),
              (tx, e) -> {
                throw new AssertionError("card " + SECRET + " of " + e.payloadText());
              });
      rig.publish("orders", 9, PAYLOAD);
      rig.once.newRelay().runOnce();
      consumer.start();
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> captured.toString(StandardCharsets.UTF_8).contains("worker crashed"));
    } finally {
      System.setErr(err);
    }
    String logs = captured.toString(StandardCharsets.UTF_8);
    assertThat(logs)
        .contains("worker crashed: java.lang.AssertionError at ")
        .contains("failed at received; processing goes on: java.lang.IllegalStateException at ")
        .doesNotContain(SECRET)
        .doesNotContain("Lovelace");
  }

  @Test
  void theSummaryShowsSizeAndHashOnly() {
    byte[] payload = PAYLOAD.getBytes(StandardCharsets.UTF_8);
    assertThat(Redaction.summary(payload))
        .matches(payload.length + " bytes, sha256:[0-9a-f]{12}")
        .doesNotContain(SECRET);
  }

  @Test
  void aNonJsonPayloadIsScrubbedWordByWord() {
    byte[] payload = "user=ada pin=839201".getBytes(StandardCharsets.UTF_8);
    assertThat(Redaction.scrub("bad pin 839201 for ada", payload))
        .isEqualTo("bad pin *** for ada"); // words under 4 characters stay
  }
}
