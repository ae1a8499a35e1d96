package dev.once.jdbc;

/**
 * A database that {@link Dialects} finds with {@link java.util.ServiceLoader}: list the
 * implementation in {@code META-INF/services/dev.once.jdbc.DialectProvider} of the jar that ships
 * it. It needs a public no-argument constructor. With its {@link SqlFlavour} and its schema files
 * it is all a new database implements: {@link #dialect()} makes the statements of {@code
 * dev.once.jdbc} run on the flavour.
 */
public interface DialectProvider {

  /** The dialect's name, as {@link Dialect#name()} and {@link Dialects#named} know it. */
  String name();

  /**
   * Whether this dialect runs on the database whose JDBC driver reports {@code product} ({@code
   * DatabaseMetaData.getDatabaseProductName()}, lower-cased).
   */
  boolean runsOn(String product);

  /** How the database differs from standard SQL; a new one each time. */
  SqlFlavour flavour();

  /**
   * A new dialect: the standard parts over {@link #flavour()}. A database with a faster form of a
   * statement family overrides it with {@link JdbcDialect#builder} and its own part.
   */
  default Dialect dialect() {
    return JdbcDialect.of(flavour());
  }

  /**
   * When {@code failure} (of opening a connection, before the dialect is known) says that the
   * schema or database the URL names does not exist: what it is and how to create it; else empty.
   * The default recognises nothing.
   */
  default java.util.Optional<MissingSchema> missingSchema(java.sql.SQLException failure) {
    return java.util.Optional.empty();
  }
}
