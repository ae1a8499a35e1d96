package dev.once.app.common;

import java.util.Locale;

/**
 * What a JDBC URL given with {@code --db} says about where the Once tables are: its namespace
 * ({@code currentSchema} on PostgreSQL, the database on MariaDB/MySQL), checked against {@code
 * --schema}, and the URL rewritten to another namespace.
 */
final class JdbcUrls {
  private static final java.util.regex.Pattern SCHEMA_NAME =
      java.util.regex.Pattern.compile("[a-z_][a-z0-9_]{0,62}");

  private JdbcUrls() {}

  /**
   * The namespace a command works in: {@code --schema} {@code schema} if given, else the one the
   * JDBC URL names ({@code currentSchema} on PostgreSQL — the first of a list —, the database in
   * the path on MariaDB/MySQL), else {@value Database#DEMO_SCHEMA}. Both given and different is an
   * error naming both: which one was meant is not ours to guess.
   */
  public static String namespace(String url, String schema) {
    check(url);
    String inUrl = url == null ? null : urlNamespace(url);
    if (schema != null) {
      checkName("--schema", schema);
      if (inUrl != null && !inUrl.equals(schema)) {
        throw new UserError(
            "--schema "
                + schema
                + " and "
                + (isMariaDb(url) ? "the database " : "currentSchema=")
                + inUrl
                + " in --db name two different "
                + (isMariaDb(url) ? "databases" : "schemas")
                + ": give one of them, or the same in both");
      }
      return schema;
    }
    if (inUrl != null) {
      checkName(urlNamespaceOption(url) + " in --db", inUrl);
      return inUrl;
    }
    return Database.DEMO_SCHEMA;
  }

  private static void checkName(String what, String name) {
    if (!SCHEMA_NAME.matcher(name).matches()) {
      throw new UserError(
          what
              + " must be 1 to 63 lower-case letters, digits and underscores, not starting with"
              + " a digit, was '"
              + name
              + "'");
    }
  }

  private static String urlNamespaceOption(String url) {
    return isMariaDb(url) ? "the database" : "currentSchema";
  }

  /** The schema (PostgreSQL) or database (MariaDB) the URL names, or null when it names none. */
  static String urlNamespace(String url) {
    int query = url.indexOf('?');
    String head = query < 0 ? url : url.substring(0, query);
    if (isMariaDb(url)) {
      int authority = head.indexOf("//");
      int slash = authority < 0 ? -1 : head.indexOf('/', authority + 2);
      String database = slash < 0 ? "" : head.substring(slash + 1);
      return database.isEmpty() ? null : decode(database);
    }
    if (query < 0) {
      return null;
    }
    for (String param : url.substring(query + 1).split("&")) {
      if (param.toLowerCase(Locale.ROOT).startsWith("currentschema=")) {
        String first = decode(param.substring("currentschema=".length())).split(",")[0].strip();
        return first.isEmpty() ? null : first;
      }
    }
    return null;
  }

  private static String decode(String text) {
    try {
      return java.net.URLDecoder.decode(text, java.nio.charset.StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      return text; // the driver will say what is wrong with the URL
    }
  }

  static void check(String url) {
    if (url != null && !url.startsWith("jdbc:postgresql:") && !isMariaDb(url)) {
      throw new UserError(
          "--db must be a PostgreSQL or MariaDB/MySQL JDBC URL such as"
              + " jdbc:postgresql://127.0.0.1:5432/test?user=postgres or"
              + " jdbc:mariadb://127.0.0.1:3306/test?user=root, was '"
              + Database.redact(url)
              + "'");
    }
  }

  /**
   * {@code url} with {@code schema} as its namespace: PostgreSQL's {@code currentSchema} parameter
   * (any other one removed), MariaDB's database (the path).
   */
  static String inNamespace(String url, String schema) {
    int query = url.indexOf('?');
    String head = query < 0 ? url : url.substring(0, query);
    String params = query < 0 ? "" : url.substring(query + 1);
    if (isMariaDb(url)) {
      int authority = head.indexOf("//");
      int slash = authority < 0 ? -1 : head.indexOf('/', authority + 2);
      String server = slash < 0 ? head : head.substring(0, slash);
      return server + "/" + schema + (params.isEmpty() ? "" : "?" + params);
    }
    StringBuilder kept = new StringBuilder();
    for (String param : params.split("&")) {
      if (!param.isEmpty() && !param.toLowerCase(Locale.ROOT).startsWith("currentschema=")) {
        kept.append(param).append('&');
      }
    }
    return head + "?" + kept + "currentSchema=" + schema;
  }

  static boolean isMariaDb(String url) {
    return url.startsWith("jdbc:mariadb:") || url.startsWith("jdbc:mysql:");
  }
}
