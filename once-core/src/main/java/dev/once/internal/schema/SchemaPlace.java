package dev.once.internal.schema;

import dev.once.SchemaMissingException;
import dev.once.jdbc.Dialect;
import dev.once.jdbc.MissingSchema;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The schema the Once tables go to must exist before anything is looked up or locked in it: a
 * missing one is named at once, with how to create it, instead of being read as an empty schema
 * (or, for the migration lock, as a lock held by another session).
 */
public final class SchemaPlace {
  private static final Logger log = LoggerFactory.getLogger(SchemaPlace.class);

  /** SQLState insufficient_privilege (PostgreSQL) and the standard access-rule violation. */
  private static final String NO_PRIVILEGE = "42501";

  private SchemaPlace() {}

  /**
   * @throws SchemaMissingException when the connection's schema does not exist, naming it and how
   *     to create it
   */
  public static void require(Connection c, Dialect dialect) throws SQLException {
    Optional<MissingSchema> missing = dialect.status().missingSchema(c);
    if (missing.isPresent()) {
      MissingSchema m = missing.get();
      throw SchemaMissingException.schemaNotFound(m.name(), m.where() + ": " + m.howToCreate());
    }
  }

  /**
   * Creates the connection's schema when it does not exist and the dialect can (PostgreSQL: {@code
   * CREATE SCHEMA IF NOT EXISTS}, when the role has the privilege).
   *
   * @throws SchemaMissingException when it is missing and cannot be created, naming the schema and
   *     the privilege it needs
   */
  public static void ensure(Connection c, Dialect dialect) throws SQLException {
    Optional<MissingSchema> missing = dialect.status().missingSchema(c);
    if (missing.isEmpty()) {
      return;
    }
    MissingSchema m = missing.get();
    if (m.create() == null) {
      throw SchemaMissingException.schemaNotFound(m.name(), m.where() + ": " + m.howToCreate());
    }
    try (Statement s = c.createStatement()) {
      s.execute(m.create());
    } catch (SQLException e) {
      if (!NO_PRIVILEGE.equals(e.getSQLState())) {
        throw e;
      }
      throw SchemaMissingException.schemaNotFound(
          m.name(),
          m.where()
              + ", and role '"
              + c.getMetaData().getUserName()
              + "' may not create it (it needs "
              + m.privilege()
              + "): "
              + m.howToCreate());
    }
    if (!c.getAutoCommit()) {
      c.commit();
    }
    log.info("Created the schema '{}' for the Once tables ({})", m.name(), m.create());
  }
}
