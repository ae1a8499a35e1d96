package dev.once.internal.postgres;

import dev.once.jdbc.JdbcStatus;
import dev.once.jdbc.MissingSchema;
import dev.once.jdbc.SqlFlavour;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The status on PostgreSQL, whose connection works in the first schema of its {@code search_path}
 * that exists (the URL's {@code currentSchema} sets the path): when none exists, {@code
 * current_schema()} is NULL and the schema to name (and create) is the path's first.
 */
public final class PostgresStatus extends JdbcStatus {
  public PostgresStatus(SqlFlavour flavour) {
    super(flavour);
  }

  /** The current schema or, when it does not exist, the one the search_path names first. */
  @Override
  public String currentSchema(Connection c) throws SQLException {
    Place p = place(c);
    return p.current != null ? p.current : p.firstOfPath();
  }

  @Override
  public Optional<MissingSchema> missingSchema(Connection c) throws SQLException {
    Place p = place(c);
    if (p.current != null) {
      return Optional.empty();
    }
    String name = p.firstOfPath();
    if (name == null) {
      return Optional.of(
          new MissingSchema(
              null,
              "no schema: the search_path of database '" + p.database + "' is empty",
              null,
              null,
              "name one in the JDBC URL (currentSchema=shop)"));
    }
    String quoted = '"' + name.replace("\"", "\"\"") + '"';
    return Optional.of(
        new MissingSchema(
            name,
            "schema '"
                + name
                + "' (the first of the search_path '"
                + p.searchPath
                + "', which the JDBC URL's currentSchema sets) does not exist in database '"
                + p.database
                + "'",
            "CREATE SCHEMA IF NOT EXISTS " + quoted,
            "CREATE on database '" + p.database + "'",
            "create it (CREATE SCHEMA "
                + quoted
                + " AUTHORIZATION "
                + p.user
                + "), or let Schema.apply create it with a role that has CREATE on database '"
                + p.database
                + "'"));
  }

  private static Place place(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT current_schema(), current_setting('search_path'), current_user,"
                    + " current_database()")) {
      rs.next();
      return new Place(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4));
    }
  }

  private record Place(String current, String searchPath, String user, String database) {
    /** The path's first schema, {@code $user} read as the role's name; null for an empty path. */
    String firstOfPath() {
      List<String> names = split(searchPath);
      if (names.isEmpty()) {
        return null;
      }
      String first = names.get(0);
      return first.equals("$user") ? user : first;
    }
  }

  /** A search_path's names: quoted ones as written, unquoted ones folded to lower case. */
  static List<String> split(String path) {
    List<String> names = new ArrayList<>();
    int i = 0;
    while (i < path.length()) {
      while (i < path.length() && (path.charAt(i) == ',' || path.charAt(i) == ' ')) {
        i++;
      }
      if (i >= path.length()) {
        break;
      }
      StringBuilder name = new StringBuilder();
      if (path.charAt(i) == '"') {
        i++;
        while (i < path.length()) {
          char ch = path.charAt(i++);
          if (ch == '"') {
            if (i < path.length() && path.charAt(i) == '"') {
              name.append('"');
              i++;
            } else {
              break;
            }
          } else {
            name.append(ch);
          }
        }
      } else {
        int end = path.indexOf(',', i);
        end = end < 0 ? path.length() : end;
        name.append(path.substring(i, end).strip().toLowerCase(Locale.ROOT));
        i = end;
      }
      names.add(name.toString());
    }
    return names;
  }
}
