/**
 * The machinery of Once. Not API: anything here may change or vanish in any release. Use {@code
 * dev.once} (and {@code dev.once.spi} to write a transport).
 *
 * <p>This package holds the wiring ({@code OnceImpl}, {@code Engines}, {@code TxImpl}, {@code
 * ShippedDialects}) and what several engine parts share (JDBC helpers, listeners, failures, pauses,
 * engine threads, wake-ups, dead-letter writing). Each part has its own package: {@code consumer},
 * {@code relay}, {@code operations}, {@code requests}, {@code retention}, {@code schema}, and one
 * per database ({@code postgres}, {@code mariadb}). The parts name this package and never each
 * other (core's {@code PackageCyclesTest} keeps the table of allowed arrows).
 */
package dev.once.internal;
