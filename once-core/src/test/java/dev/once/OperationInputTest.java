package dev.once;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.ConnectException;
import java.net.SocketTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class OperationInputTest {
  private static final String CHARGE = "{\"order\":\"814\",\"amount\":1250}";
  private final OperationFixture f = new OperationFixture(true);

  @AfterEach
  void close() {
    f.close();
  }

  @Test
  void anEmptyOrOverlongOperationIdIsRefusedBeforeAnythingIsStored() {
    Operations charges = f.operations();
    assertThatThrownBy(() -> charges.call("", CHARGE))
        .isInstanceOf(InvalidOperationException.class)
        .hasMessage("operation.id must not be empty");
    assertThatThrownBy(() -> charges.call(null, CHARGE))
        .hasMessage("operation.id must not be null");
    assertThatThrownBy(() -> charges.call("x".repeat(201), CHARGE))
        .hasMessageStartingWith("operation.id is 201 characters, the limit is 200");
    assertThat(f.count("true")).isZero();
    assertThat(f.provider.calls()).isZero();
  }

  @Test
  void anOversizedRequestIsRefusedNamingItsSize() {
    Operations charges = f.operations();
    assertThatThrownBy(() -> charges.call("charge:814", "x".repeat(70_000)))
        .isInstanceOf(InvalidOperationException.class)
        .hasMessage("operation.request of 'charge:814' is 70000 bytes, the limit is 65536");
    assertThat(f.count("true")).isZero();
  }

  @Test
  void theSameOperationIdWithAnotherRequestIsAnErrorNotASecondCall() {
    Operations charges = f.operations();
    charges.call("charge:814", CHARGE);
    assertThatThrownBy(() -> charges.call("charge:814", "{\"order\":\"814\",\"amount\":9999}"))
        .isInstanceOf(OperationConflictException.class)
        .hasMessageContaining("stored with a different request");
    assertThat(f.provider.calls()).isOne();
  }

  @Test
  void aProviderThatCannotBeReachedLeavesTheOperationPendingWithTheReason() {
    Operations charges =
        f.operations(
            b ->
                b.call(
                    (key, request) -> {
                      throw new RequestNotSentException(
                          "POST http://127.0.0.1:9/v1/charges",
                          new ConnectException("Connection refused"));
                    }));
    OperationResult r = charges.call("charge:814", CHARGE);

    assertThat(r.state()).isEqualTo(OperationState.PENDING);
    assertThat(r.error()).contains("not sent", "127.0.0.1:9");
    assertThat(f.count("next_attempt_at > created_at")).isOne();
  }

  @Test
  void aProviderThatDoesNotAnswerLeavesTheOperationUnknownWithTheReason() {
    Operations charges =
        f.operations(
            b ->
                b.call(
                    (key, request) -> {
                      throw new SocketTimeoutException("Read timed out");
                    }));
    OperationResult r = charges.call("charge:814", CHARGE);

    assertThat(r.state()).isEqualTo(OperationState.UNKNOWN);
    assertThat(r.error()).contains("no answer", "Read timed out");
  }

  @Test
  void aProviderErrorBodyThatEchoesTheRequestIsCutAndScrubbedInLastError() {
    String request = "{\"card\":\"4111111111111111\",\"holder\":\"Ada Lovelace\"}";
    String body = "HTTP 500 " + "x".repeat(5_000) + " bad card 4111111111111111";
    Operations charges =
        f.operations(
            b ->
                b.call(
                    (key, req) -> {
                      throw new java.io.IOException(
                          "holder Ada Lovelace, card 4111111111111111 refused: " + body);
                    }));
    OperationResult r = charges.call("charge:815", request);

    assertThat(r.state()).isEqualTo(OperationState.UNKNOWN);
    assertThat(r.error())
        .startsWith("no answer: java.io.IOException: holder ***, card *** refused: HTTP 500 xxx")
        .doesNotContain("4111")
        .doesNotContain("Lovelace");
    assertThat(r.error().length()).isLessThanOrEqualTo("no answer: ".length() + 1001);
  }

  @Test
  void theBuilderRequiresAnExplicitIdempotencyDeclarationAndPolicy() {
    assertThatThrownBy(
            () ->
                f.once
                    .operations("mail")
                    .call((k, r) -> "ok")
                    .whenUncertain(ReconcilePolicy.PREFER_MISSED)
                    .build())
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("operations.idempotency must be declared");
    assertThatThrownBy(
            () -> f.once.operations("mail").withoutIdempotency().call((k, r) -> "ok").build())
        .hasMessage("operations.whenUncertain is required");
  }
}
