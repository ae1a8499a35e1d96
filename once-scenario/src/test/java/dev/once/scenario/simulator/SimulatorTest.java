package dev.once.scenario.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.once.LookupAnswer;
import dev.once.ProviderRejectedException;
import dev.once.testkit.SettableClock;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The simulator's own Stripe-like semantics, over real HTTP on loopback. */
class SimulatorTest {
  private static final String CHARGE = "{\"reference\":\"charge:1\",\"order\":\"1\",\"amount\":5}";
  private final SettableClock clock = SettableClock.stoppedNow();
  private ProviderSimulator sim;
  private ProviderClient client;

  private void start(SimulatorConfig config) {
    sim = ProviderSimulator.start(config.withClock(clock, Duration.ofHours(24)));
    client = new ProviderClient(sim.baseUri(), Duration.ofSeconds(5));
  }

  @AfterEach
  void stop() {
    sim.close();
  }

  /**
   * Without TCP_NODELAY an answer's body waits for the client's delayed ACK of its headers: 20 ms
   * per call on average here, 0.9 ms with it (docs/PERFORMANCE.md, "Recovery after faults").
   */
  @Test
  void theSimulatorsServerAnswersWithoutNaglesDelay() throws Exception {
    start(SimulatorConfig.defaults());
    client.charge("k1", CHARGE);
    assertThat(Boolean.getBoolean(dev.once.scenario.net.NoDelayHttpServer.PROPERTY)).isTrue();
  }

  @Test
  void theSameKeyGetsTheSavedFirstResponseAndChargesOnce() throws Exception {
    start(SimulatorConfig.defaults());
    String first = client.charge("k1", CHARGE);
    assertThat(client.charge("k1", CHARGE)).isEqualTo(first);
    assertThat(sim.ledger().entries("charges")).hasSize(1);
    assertThat(client.ledger().get("charges")).hasSize(1);
  }

  @Test
  void theSameKeyWithAnotherBodyIsRefusedWith422() throws Exception {
    start(SimulatorConfig.defaults());
    client.charge("k1", CHARGE);
    assertThatThrownBy(() -> client.charge("k1", CHARGE.replace("5", "6")))
        .isInstanceOf(ProviderRejectedException.class)
        .hasMessageContaining("422");
    assertThat(sim.ledger().entries("charges")).hasSize(1);
  }

  @Test
  void theSameKeyWhileTheFirstRequestRunsIsA409() throws Exception {
    start(
        SimulatorConfig.defaults()
            .withSlow(Duration.ofMillis(500))
            .withFaults(new FaultPlan(0, 1, 0, 0, 1)));
    CompletableFuture<String> first =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return client.charge("k1", CHARGE);
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    await().atMost(Duration.ofSeconds(10)).until(() -> sim.ledger().running() == 1);
    assertThatThrownBy(() -> client.charge("k1", CHARGE))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("409");
    first.get();
    assertThat(sim.ledger().entries("charges")).hasSize(1);
  }

  @Test
  void aKeyOlderThanTheRetentionWindowIsForgottenAndChargesAgain() throws Exception {
    start(SimulatorConfig.defaults());
    client.charge("k1", CHARGE);
    clock.advance(Duration.ofHours(25));
    client.charge("k1", CHARGE);
    assertThat(sim.ledger().entries("charges")).hasSize(2);
  }

  @Test
  void aDroppedResponseStillCharges() throws Exception {
    start(SimulatorConfig.defaults().withFaults(new FaultPlan(1, 0, 0, 0, 1)));
    assertThatThrownBy(() -> client.charge("k1", CHARGE)).isInstanceOf(IOException.class);
    assertThat(sim.ledger().entries("charges")).hasSize(1);
    assertThat(client.findCharge("k1", "charge:1").kind()).isEqualTo(LookupAnswer.Kind.FOUND);
    assertThat(client.findCharge("k2", "charge:2").kind()).isEqualTo(LookupAnswer.Kind.NOT_FOUND);
  }

  @Test
  void aServerErrorDoesNotActAndTheMailRelayIgnoresKeys() throws Exception {
    start(SimulatorConfig.defaults().withFaults(new FaultPlan(0, 0, 0, 1, 1)));
    assertThatThrownBy(() -> client.charge("k1", CHARGE)).hasMessageContaining("503");
    assertThat(sim.ledger().entries("charges")).isEmpty();
    sim.close();

    start(SimulatorConfig.defaults());
    String mail = "{\"reference\":\"email:1\",\"to\":\"a@example.org\"}";
    client.sendEmail("k1", mail);
    client.sendEmail("k1", mail);
    assertThat(sim.ledger().entries("emails")).hasSize(2); // no idempotency: sent twice
    assertThat(client.findEmail("k1", "email:1").kind()).isEqualTo(LookupAnswer.Kind.CANNOT_TELL);
  }
}
