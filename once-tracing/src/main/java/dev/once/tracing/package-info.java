/**
 * One trace from the producer's transaction to the last effect: {@link
 * dev.once.tracing.ObservationTracing}, Once's {@link dev.once.Tracing} hook over Micrometer
 * Observation.
 */
package dev.once.tracing;
