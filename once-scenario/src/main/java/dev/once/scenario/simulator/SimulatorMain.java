package dev.once.scenario.simulator;

import java.nio.file.Path;
import java.time.Duration;

/**
 * Runs the provider simulator as a process of its own, e.g. for tests that kill it mid-request.
 * Arguments: {@code <journal> [port] [none|slow|stall] [delayMillis]}: with {@code slow} every
 * request waits before acting, with {@code stall} it acts and then waits before answering. Prints
 * {@code listening <port>}.
 */
public final class SimulatorMain {
  private SimulatorMain() {}

  public static void main(String[] args) throws InterruptedException {
    Path journal = Path.of(args[0]);
    int port = args.length > 1 ? Integer.parseInt(args[1]) : 0;
    String mode = args.length > 2 ? args[2] : "none";
    long slowMillis = args.length > 3 ? Long.parseLong(args[3]) : 2_000;
    FaultPlan faults =
        new FaultPlan(0, mode.equals("slow") ? 1 : 0, mode.equals("stall") ? 1 : 0, 0, 1);
    SimulatorConfig config =
        SimulatorConfig.defaults()
            .withJournal(journal, port)
            .withSlow(Duration.ofMillis(slowMillis))
            .withFaults(faults);
    ProviderSimulator simulator = ProviderSimulator.start(config);
    System.out.println("listening " + simulator.port());
    System.out.flush();
    Thread.currentThread().join();
  }
}
