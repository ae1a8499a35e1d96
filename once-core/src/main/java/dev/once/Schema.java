package dev.once;

import dev.once.spi.Dialect;
import dev.once.spi.Dialects;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * The Once schema of a dialect, as the migration files shipped in this jar under {@code
 * dev/once/schema/<dialect>/}. Apply it with your migration tool (Flyway: add that location), or
 * with {@link #apply} for tests and quick starts.
 */
public final class Schema {
  private Schema() {}

  /** The classpath location of the dialect's migrations, e.g. for Flyway's {@code locations}. */
  public static String location(Dialect dialect) {
    return "dev/once/schema/" + dialect.name();
  }

  /** Each migration's file name and text, in order. */
  public static Map<String, String> migrations(Dialect dialect) {
    Map<String, String> files = new LinkedHashMap<>();
    for (String name : dialect.schemaResources()) {
      String path = location(dialect) + "/" + name;
      try (InputStream in = Schema.class.getClassLoader().getResourceAsStream(path)) {
        if (in == null) {
          throw new OnceException("schema resource " + path + " is missing from the classpath");
        }
        files.put(name, new String(in.readAllBytes(), StandardCharsets.UTF_8));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return files;
  }

  /** All migrations as one script. */
  public static String sql(Dialect dialect) {
    StringBuilder all = new StringBuilder();
    migrations(dialect)
        .forEach(
            (name, text) -> all.append("-- ").append(name).append('\n').append(text).append('\n'));
    return all.toString();
  }

  /**
   * Checks, without changing anything, that the Once tables exist in the current schema of {@code
   * dataSource}: for read-only tools, which must never apply migrations to a database they only
   * look at.
   *
   * @throws SchemaMissingException naming the first missing table
   */
  public static void check(DataSource dataSource) {
    dev.once.internal.OnceImpl.checkSchema(dataSource, Dialects.forDataSource(dataSource));
  }

  /**
   * Runs every migration of the database behind {@code dataSource} (its dialect chosen by {@link
   * Dialects#forDataSource}) in one transaction, in its current schema. For tests and quick starts;
   * in production, add {@link #location} to your migration tool.
   */
  public static void apply(DataSource dataSource) {
    apply(dataSource, Dialects.forDataSource(dataSource));
  }

  /**
   * Runs every migration of {@code dialect}, statement by statement, in one transaction, in the
   * current schema (on MariaDB/MySQL each DDL statement commits by itself: a failed apply leaves
   * the tables created so far).
   */
  public static void apply(DataSource dataSource, Dialect dialect) {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try (Statement s = c.createStatement()) {
        for (String text : migrations(dialect).values()) {
          for (String statement : statements(text)) {
            s.execute(statement);
          }
        }
        c.commit();
      } catch (SQLException e) {
        c.rollback();
        throw e;
      }
    } catch (SQLException e) {
      throw new StoreException("apply the Once schema", e);
    }
  }

  /** A script's statements: comment lines dropped, split at a ';' that ends a line. */
  static List<String> statements(String script) {
    StringBuilder sql = new StringBuilder();
    for (String line : script.split("\n")) {
      if (!line.strip().startsWith("--")) {
        sql.append(line).append('\n');
      }
    }
    return Arrays.stream(sql.toString().split(";[ \t]*\n"))
        .map(String::strip)
        .filter(statement -> !statement.isEmpty())
        .toList();
  }
}
