/**
 * The demo's HTTP front: an order API on the JDK's HTTP server whose {@code POST /orders} is
 * idempotent through core's request keys, and the client that places orders through it, loses a
 * share of the answers and retries. Not API.
 */
package dev.once.scenario.http;
