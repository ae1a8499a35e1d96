package dev.once.app.common;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.Properties;

/**
 * The CLI's embedded PostgreSQL with a superuser that needs a password: generated on the first
 * start, kept beside the data folder ({@code .once/pg.password}, mode 0600), asked for by
 * scram-sha-256 on TCP and on the Unix socket. A data folder made by an older {@code once} (which
 * trusted every local connection) gets the password and the rules on its first start here.
 */
final class EmbeddedServer {
  static final String USER = "postgres";

  private static final String SCRAM = "scram-sha-256";
  private static final String HBA =
      """
      # Written by once: every connection needs the password kept in %s (mode 0600).
      # TYPE  DATABASE     USER  ADDRESS       METHOD
      local   all          all                 scram-sha-256
      host    all          all   127.0.0.1/32  scram-sha-256
      host    all          all   ::1/128       scram-sha-256
      local   replication  all                 scram-sha-256
      host    replication  all   127.0.0.1/32  scram-sha-256
      host    replication  all   ::1/128       scram-sha-256
      """;

  private EmbeddedServer() {}

  /** A started server and the JDBC URL (with its password: never print it) to reach it. */
  record Started(EmbeddedPostgres postgres, String jdbcUrl) {}

  /** Starts the server of {@code data} with {@code config}, securing the folder if it is old. */
  static Started start(Path data, Map<String, String> config) throws IOException {
    Path passwordFile = passwordFile(data);
    boolean initialised = Files.exists(data.resolve("postgresql.conf"));
    boolean trusting = initialised && trusts(data.resolve("pg_hba.conf"));
    if (initialised && !trusting && !Files.exists(passwordFile)) {
      throw new UserError(
          "the embedded PostgreSQL in "
              + data
              + " needs the password that was kept in "
              + passwordFile
              + ", which is missing: restore the file, or remove "
              + data
              + " (the embedded database's data) to start afresh");
    }
    String password = SecretFile.readOrCreate(passwordFile);
    Files.createDirectories(data);
    EmbeddedPostgres.Builder builder =
        EmbeddedPostgres.builder()
            .setDataDirectory(data)
            .setCleanDataDirectory(false)
            .setConnectConfig("password", password); // its own start-up probe logs in
    config.forEach(builder::setServerConfig);
    if (!initialised) {
      // zonky runs "initdb -A trust ..." followed by these as --key=value: initdb takes the last
      // authentication method given, and the superuser's password from the file
      builder
          .setLocaleConfig("pwfile", passwordFile.toAbsolutePath().toString())
          .setLocaleConfig("auth-local", SCRAM)
          .setLocaleConfig("auth-host", SCRAM);
    }
    EmbeddedPostgres pg = builder.start();
    String url = pg.getJdbcUrl(USER, "postgres") + "&password=" + password;
    if (trusting) {
      secure(pg, data, passwordFile, password, url);
    }
    return new Started(pg, url);
  }

  /** {@code .once/pg.password} for {@code .once/pg}. */
  static Path passwordFile(Path data) {
    return data.resolveSibling(data.getFileName() + ".password");
  }

  /** True if a rule of {@code pg_hba.conf} lets a connection in without a password. */
  static boolean trusts(Path hba) throws IOException {
    if (!Files.exists(hba)) {
      return true;
    }
    return Files.readAllLines(hba, StandardCharsets.UTF_8).stream()
        .map(l -> l.replaceFirst("#.*", "").trim())
        .filter(l -> !l.isEmpty())
        .anyMatch(l -> !l.endsWith(SCRAM) && !l.endsWith("md5"));
  }

  /**
   * An older folder: gives the superuser the password, replaces the trusting rules and reloads
   * them, and waits until a connection without the password is refused.
   */
  private static void secure(
      EmbeddedPostgres pg, Path data, Path passwordFile, String password, String url)
      throws IOException {
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement()) {
      s.execute("SET password_encryption = '" + SCRAM + "'");
      // the password is base64url: no quote can end the literal
      s.execute("ALTER ROLE " + USER + " PASSWORD '" + password + "'");
      Files.writeString(data.resolve("pg_hba.conf"), HBA.formatted(passwordFile));
      s.execute("SELECT pg_reload_conf()");
    } catch (SQLException e) {
      throw new IOException("cannot set the superuser's password: " + e.getMessage(), e);
    }
    String bare = pg.getJdbcUrl(USER, "postgres");
    for (int i = 0; i < 100; i++) {
      if (!acceptsWithoutPassword(bare)) {
        return;
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while the new rules load", e);
      }
    }
    throw new IOException("the embedded PostgreSQL still accepts connections without a password");
  }

  private static boolean acceptsWithoutPassword(String url) {
    try (Connection c = DriverManager.getConnection(url, new Properties())) {
      return true;
    } catch (SQLException e) {
      return false;
    }
  }
}
