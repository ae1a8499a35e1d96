package dev.once.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The windows' labels are what reports, JSON and docs print: renaming a constant keeps them. */
class CrashPointTest {
  @Test
  void eachLabelIsTheNameOfItsConstantAndStaysWhatReportsPrint() {
    assertThat(Arrays.stream(CrashPoint.values()).map(CrashPoint::label))
        .containsExactly(
            "producer.before-commit",
            "consumer.before-transaction",
            "consumer.after-marker",
            "consumer.after-effect-before-commit",
            "consumer.after-commit-before-ack",
            "relay.after-publish-before-mark-sent",
            "operation.key-stored-before-call",
            "operation.provider-accepted-before-result-stored",
            "api.before-commit",
            "api.after-commit-before-response");
  }
}
