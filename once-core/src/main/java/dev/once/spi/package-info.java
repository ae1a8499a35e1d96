/**
 * For people who write a transport or a store for Once. Stable, but less so than {@code dev.once}:
 * a minor release may add methods with defaults.
 */
package dev.once.spi;
