/**
 * For people who write a transport for Once ({@link dev.once.spi.Transport} and its optional
 * capabilities); a database is added in {@code dev.once.jdbc}. Stable, but less so than {@code
 * dev.once}: a minor release may add methods with defaults.
 */
package dev.once.spi;
