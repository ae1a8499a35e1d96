/**
 * MariaDB (and MySQL): its {@code SqlFlavour} ({@code MariaDbFlavour}) and status queries ({@code
 * MariaDbStatus}). Not API.
 */
package dev.once.internal.mariadb;
