/**
 * For people who add a database, and the JDBC store: Once's statements written once in standard
 * SQL, run on each database through its {@link dev.once.jdbc.SqlFlavour}. A new database is a
 * flavour, a {@link dev.once.jdbc.DialectProvider} (found by {@link dev.once.jdbc.Dialects} through
 * {@link java.util.ServiceLoader}) and its schema files. The rest is a detail: {@link
 * dev.once.jdbc.JdbcDialect} makes the engine's {@link dev.once.jdbc.Dialect} of a flavour and its
 * parts ({@link dev.once.jdbc.StoreDialect} and the others); a part can be subclassed where a
 * database has a faster form of a statement family (PostgreSQL inserts a batch of markers in one
 * statement). As stable as {@code dev.once.spi}; the SQL text itself may change in any release.
 */
package dev.once.jdbc;
