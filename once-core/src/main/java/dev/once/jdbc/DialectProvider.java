package dev.once.jdbc;

/**
 * A dialect that {@link Dialects} finds with {@link java.util.ServiceLoader}: list the
 * implementation in {@code META-INF/services/dev.once.jdbc.DialectProvider} of the jar that ships
 * it. It needs a public no-argument constructor.
 */
public interface DialectProvider {

  /** The dialect's name, as {@link Dialect#name()} and {@link Dialects#named} know it. */
  String name();

  /**
   * Whether this dialect runs on the database whose JDBC driver reports {@code product} ({@code
   * DatabaseMetaData.getDatabaseProductName()}, lower-cased).
   */
  boolean runsOn(String product);

  /** A new dialect. */
  Dialect dialect();

  /**
   * When {@code failure} (of opening a connection, before the dialect is known) says that the
   * schema or database the URL names does not exist: what it is and how to create it; else empty.
   * The default recognises nothing.
   */
  default java.util.Optional<MissingSchema> missingSchema(java.sql.SQLException failure) {
    return java.util.Optional.empty();
  }
}
