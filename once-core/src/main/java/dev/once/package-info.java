/**
 * Once's API: exactly-once business effects over at-least-once delivery.
 *
 * <ul>
 *   <li>{@link dev.once.Once} — built by {@link dev.once.OnceBuilder}: producer transactions
 *       ({@link dev.once.Once#useTransaction}, {@link dev.once.Tx#publish}), consumers ({@link
 *       dev.once.Once#consumer(String)}), relays, retention, dead letters and status;
 *   <li>{@link dev.once.Event} and {@link dev.once.EventId} — the stable identity every delivery
 *       carries; {@link dev.once.ReceivedEvent} — one delivery of it as a handler sees it;
 *   <li>{@link dev.once.Operations} — remote actions with an idempotency key stored before the
 *       first call;
 *   <li>{@link dev.once.OnceListener} — every step, for metrics, logs and the testkit.
 * </ul>
 *
 * <p>Transports and dialects are in {@link dev.once.spi}; {@code dev.once.internal} is not API.
 */
package dev.once;
