/**
 * The machinery of Once. Not API: anything here may change or vanish in any release. Use {@code
 * dev.once} (and {@code dev.once.spi} to write a transport).
 *
 * <p>This package holds what several engine parts share (JDBC helpers, the producer transaction
 * {@code TxImpl}, listeners, failures, pauses, engine threads, wake-ups, dead-letter writing,
 * {@code EngineLifecycle}). Each part has its own package: {@code consumer}, {@code relay}, {@code
 * operations}, {@code requests}, {@code retention}, {@code schema}, and one per database ({@code
 * postgres}, {@code mariadb}); {@code wiring} assembles them. The parts name this package and never
 * each other, and read a small context the wiring builds (e.g. {@code OperationsContext}), never
 * the wiring; this package names no part but PostgreSQL's and never the wiring (core's {@code
 * EnginePartsTest} keeps the table of allowed arrows).
 */
package dev.once.internal;
