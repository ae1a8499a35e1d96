/**
 * The JDBC store: Once's statements written once in standard SQL, run on each database through its
 * {@link dev.once.spi.SqlFlavour}. {@link dev.once.jdbc.JdbcDialect} makes a dialect of a flavour
 * and its parts; a part can be subclassed where a database has a faster form of a statement family
 * (PostgreSQL inserts a batch of markers in one statement). For people who write a dialect; as
 * stable as {@code dev.once.spi}, the SQL text itself may change in any release.
 */
package dev.once.jdbc;
