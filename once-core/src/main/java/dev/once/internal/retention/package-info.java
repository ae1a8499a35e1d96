/**
 * Retention: deletes old processed, published and dead rows in batches ({@code RetentionImpl}). Not
 * API.
 */
package dev.once.internal.retention;
