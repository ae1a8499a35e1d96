/**
 * {@code Idempotency-Key} for HTTP APIs on a servlet container: {@link
 * dev.once.web.IdempotencyFilter} claims the client's key, runs the request in a Once transaction
 * and stores the response in that same transaction, so a retry gets the first response and never a
 * second business change. See docs/HTTP.md.
 */
package dev.once.web;
