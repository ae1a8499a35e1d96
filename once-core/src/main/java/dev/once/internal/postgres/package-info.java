/**
 * PostgreSQL: its {@code SqlFlavour} ({@code PostgresFlavour}), its faster forms of some store
 * statements ({@code PostgresStore}, {@code PostgresQueue}, {@code PostgresOperations}, {@code
 * PostgresDeadLetters}, {@code PostgresRequestKeys}), its status queries and its LISTEN/NOTIFY
 * wake-ups ({@code PostgresListener}, {@code PostgresNotifier}). Not API.
 */
package dev.once.internal.postgres;
