package dev.once.internal.mariadb;

import dev.once.jdbc.JdbcStatus;
import dev.once.jdbc.MissingSchema;
import dev.once.jdbc.SqlFlavour;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The status on MariaDB/MySQL, where the database is the schema: a connection that names no
 * database has no place for the Once tables, and Once cannot choose one (a URL that names a
 * database that does not exist does not connect at all).
 */
public final class MariaDbStatus extends JdbcStatus {
  /** ER_BAD_DB_ERROR, MariaDB's and MySQL's "Unknown database". */
  private static final int UNKNOWN_DATABASE = 1049;

  private static final Pattern QUOTED = Pattern.compile("'([^']+)'");

  public MariaDbStatus(SqlFlavour flavour) {
    super(flavour);
  }

  @Override
  public String schemaNote() {
    return " (on MariaDB/MySQL the database is the schema)";
  }

  @Override
  public Optional<MissingSchema> missingSchema(Connection c) throws SQLException {
    if (c.getCatalog() != null) {
      return Optional.empty();
    }
    return Optional.of(
        new MissingSchema(
            null,
            "no database: the connection names none, and on MariaDB/MySQL the database is the"
                + " schema",
            null,
            null,
            "name it in the JDBC URL (jdbc:mariadb://host:3306/shop) and create it first (CREATE"
                + " DATABASE shop)"));
  }

  /** A connection refused because the database the URL names does not exist. */
  public static Optional<MissingSchema> unknownDatabase(SQLException failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof SQLException e && e.getErrorCode() == UNKNOWN_DATABASE) {
        Matcher quoted = QUOTED.matcher(String.valueOf(e.getMessage()));
        String name = quoted.find() ? quoted.group(1) : null;
        String shown = name == null ? "the database the JDBC URL names" : "database '" + name + "'";
        return Optional.of(
            new MissingSchema(
                name,
                shown
                    + " does not exist (on MariaDB/MySQL the database is the schema; Schema.apply"
                    + " cannot create it, as it connects to it)",
                null,
                "CREATE on the server",
                "create it first (CREATE DATABASE " + (name == null ? "<name>" : name) + ")"));
      }
    }
    return Optional.empty();
  }
}
