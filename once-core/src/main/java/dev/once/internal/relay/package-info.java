/**
 * The relay: reads unpublished outbox rows, publishes them through the transport and marks them
 * published ({@code RelayImpl}); destinations no transport binding knows are reported by {@code
 * UnboundDestinations}. Not API.
 */
package dev.once.internal.relay;
