/**
 * The machinery of Once. Not API: anything here may change or vanish in any release. Use {@code
 * dev.once} (and {@code dev.once.spi} to write a transport).
 */
package dev.once.internal;
