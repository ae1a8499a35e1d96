package dev.once.scenario.simulator;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;

/**
 * How the provider simulator behaves.
 *
 * @param port the loopback port, 0 for an ephemeral one
 * @param idempotentCharges whether {@code /v1/charges} honours {@code Idempotency-Key}
 *     (Stripe-like)
 * @param idempotentEmails whether {@code /v1/emails} honours it (a plain mail relay does not)
 * @param emailLookup whether {@code GET /v1/emails?reference=} answers (else 501)
 * @param retention how long a key is remembered; a key older than this is treated as new
 * @param slow how long a {@link Fault#SLOW} answer is held back
 * @param faults which share of POSTs gets which fault
 * @param journal where what was done is appended (and reloaded from at start), or null
 * @param clock the time source of key retention
 */
public record SimulatorConfig(
    int port,
    boolean idempotentCharges,
    boolean idempotentEmails,
    boolean emailLookup,
    Duration retention,
    Duration slow,
    FaultPlan faults,
    Path journal,
    Clock clock) {

  /** Stripe-like charges (24 h keys), a mail relay without idempotency or lookup, no faults. */
  public static SimulatorConfig defaults() {
    return new SimulatorConfig(
        0,
        true,
        false,
        false,
        Duration.ofHours(24),
        Duration.ofSeconds(2),
        FaultPlan.none(),
        null,
        Clock.systemUTC());
  }

  public SimulatorConfig withFaults(FaultPlan faults) {
    return new SimulatorConfig(
        port,
        idempotentCharges,
        idempotentEmails,
        emailLookup,
        retention,
        slow,
        faults,
        journal,
        clock);
  }

  public SimulatorConfig withClock(Clock clock, Duration retention) {
    return new SimulatorConfig(
        port,
        idempotentCharges,
        idempotentEmails,
        emailLookup,
        retention,
        slow,
        faults,
        journal,
        clock);
  }

  public SimulatorConfig withEmails(boolean idempotent, boolean lookup) {
    return new SimulatorConfig(
        port, idempotentCharges, idempotent, lookup, retention, slow, faults, journal, clock);
  }

  public SimulatorConfig withChargesIdempotent(boolean idempotent) {
    return new SimulatorConfig(
        port, idempotent, idempotentEmails, emailLookup, retention, slow, faults, journal, clock);
  }

  public SimulatorConfig withSlow(Duration slow) {
    return new SimulatorConfig(
        port,
        idempotentCharges,
        idempotentEmails,
        emailLookup,
        retention,
        slow,
        faults,
        journal,
        clock);
  }

  public SimulatorConfig withJournal(Path journal, int port) {
    return new SimulatorConfig(
        port,
        idempotentCharges,
        idempotentEmails,
        emailLookup,
        retention,
        slow,
        faults,
        journal,
        clock);
  }
}
