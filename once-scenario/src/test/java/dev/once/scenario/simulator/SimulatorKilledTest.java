package dev.once.scenario.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.once.OperationResult;
import dev.once.OperationState;
import dev.once.Operations;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The provider is a separate process, killed with SIGKILL while a charge is in its hands. */
class SimulatorKilledTest {
  private static final String CHARGE = "{\"reference\":\"charge:814\",\"order\":\"814\"}";
  @TempDir Path dir;
  private HttpOperations f;
  private Process child;

  @AfterEach
  void close() {
    if (child != null) {
      child.destroyForcibly();
    }
    f.close();
  }

  /** Starts SimulatorMain on the journal; returns its base URI. */
  private URI startChild(String mode) throws Exception {
    String java = ProcessHandle.current().info().command().orElse("java");
    child =
        new ProcessBuilder(
                java,
                "-cp",
                System.getProperty("java.class.path"),
                SimulatorMain.class.getName(),
                dir.resolve("journal").toString(),
                "0",
                mode,
                "20000")
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream()));
    String line = out.readLine();
    assertThat(line).startsWith("listening ");
    return URI.create("http://127.0.0.1:" + line.substring("listening ".length()));
  }

  @ParameterizedTest(name = "killed while {0}: {1}")
  @CsvSource({
    "stall, the charge was made and its answer held back",
    "slow, the charge was not made yet"
  })
  void aProviderKilledMidRequestLeavesOneChargeAfterReconciliation(String mode, String what)
      throws Exception {
    f = new HttpOperations(SimulatorConfig.defaults());
    f.client = new ProviderClient(startChild(mode), Duration.ofSeconds(30));
    Operations charges = f.charges(b -> b);
    CompletableFuture<OperationResult> call =
        CompletableFuture.supplyAsync(() -> charges.call("charge:814", CHARGE));
    // the request is in the provider's hands: stalled after acting (action + key journaled), or
    // slow before acting (nothing journaled yet)
    // counted, not slept for: stalled, it journaled the charge and its key; slow, it holds the key
    // (running) and journaled nothing
    long expected = mode.equals("stall") ? 2 : 0;
    long running = mode.equals("stall") ? 0 : 1;
    await()
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ofMillis(20))
        .until(
            () ->
                f.client.ledger().get("running").asLong() == running && journalLines() == expected);
    assertThat(journalLines()).isEqualTo(expected);
    child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);

    OperationResult lost = call.get(30, TimeUnit.SECONDS);
    assertThat(lost.state()).isEqualTo(OperationState.UNKNOWN);
    f.client = new ProviderClient(startChild("none"), Duration.ofSeconds(5)); // back, same journal
    f.clock.advance(Duration.ofSeconds(2));
    assertThat(charges.newReconciler().runOnce()).isOne();

    OperationResult done = charges.find("charge:814").orElseThrow();
    assertThat(done.state()).isEqualTo(OperationState.SUCCEEDED);
    assertThat(done.resolution())
        .contains(mode.equals("stall") ? "provider has a record" : "provider has no record");
    assertThat(f.client.ledger().get("charges")).hasSize(1); // the provider's own count
  }

  private long journalLines() throws Exception {
    Path journal = dir.resolve("journal");
    return Files.exists(journal) ? Files.readAllLines(journal).size() : 0;
  }
}
