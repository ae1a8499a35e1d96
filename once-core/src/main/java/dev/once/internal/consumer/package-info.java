/**
 * The consumer engine: one path per batch, read top to bottom in {@link
 * dev.once.internal.consumer.Pipeline}: receive, plan the batch ({@code Isolation}: fresh
 * deliveries together, suspects of a crash in halving groups), run each group in one transaction
 * ({@code GroupTransaction}, each delivery by {@code DeliveryRunner}), settle ({@code Settlement},
 * the only class that acknowledges, returns or releases a delivery). Each step hands the next a
 * value and gets one back ({@code BatchOutcome}); a worker ({@code Worker}) decides from the
 * outcome whether to go on, keep its deliveries through a database outage, or crash. The engine
 * reads only its {@link dev.once.internal.consumer.ConsumerContext}.
 */
package dev.once.internal.consumer;
