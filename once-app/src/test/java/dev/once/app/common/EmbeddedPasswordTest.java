package dev.once.app.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.once.app.Cli;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embedded PostgreSQL (the CLI's default database) lets nobody in over TCP without the password
 * it generated and keeps in {@code .once/pg.password}, readable by its owner only.
 */
class EmbeddedPasswordTest {

  @Test
  void theCliDefaultDatabaseRefusesATcpConnectionWithoutThePassword() throws Exception {
    String url;
    try (Database db = Database.openScenario(null, null, 1)) {
      url = db.jdbcUrl();
      assertThat(withoutPassword(url)).startsWith("jdbc:postgresql://localhost:");
      assertThatThrownBy(() -> DriverManager.getConnection(withoutPassword(url)).close())
          .isInstanceOf(SQLException.class);
      try (Connection c = DriverManager.getConnection(url)) {
        assertThat(c.isValid(1)).isTrue();
      }
    }
    Path file = Path.of(".once", "pg.password");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
        .isEqualTo("rw-------");
    String password = Files.readString(file).strip();
    assertThat(url).contains("&password=" + password);
    try (Database again = Database.openScenario(null, null, 1)) {
      assertThat(again.jdbcUrl()).as("created once, reused").contains("&password=" + password);
    }
    assertThat(Cli.run("schema", "apply").exit()).as("the CLI with no flags").isZero();
    Cli.Run status = Cli.run("status");
    assertThat(status.exit()).as("the CLI with no flags: " + status.err()).isZero();
  }

  @Test
  void aFolderMadeWithoutAPasswordGetsOneOnItsFirstStart(@TempDir Path dir) throws Exception {
    Path data = dir.resolve("pg");
    String bare;
    try (EmbeddedPostgres old =
        EmbeddedPostgres.builder().setDataDirectory(data).setCleanDataDirectory(false).start()) {
      bare = old.getJdbcUrl("postgres", "postgres");
      DriverManager.getConnection(bare).close(); // the folder of an older once: trust
    }
    EmbeddedServer.Started started = EmbeddedServer.start(data, Map.of());
    try (EmbeddedPostgres pg = started.postgres()) {
      String now = pg.getJdbcUrl("postgres", "postgres");
      assertThatThrownBy(() -> DriverManager.getConnection(now).close())
          .isInstanceOf(SQLException.class);
      DriverManager.getConnection(started.jdbcUrl()).close();
    }
    assertThat(EmbeddedServer.trusts(data.resolve("pg_hba.conf"))).isFalse();
    assertThat(Files.getPosixFilePermissions(dir.resolve("pg.password")))
        .isEqualTo(SecretFile.OWNER_ONLY);
    EmbeddedServer.Started second = EmbeddedServer.start(data, Map.of());
    try (EmbeddedPostgres pg = second.postgres()) {
      DriverManager.getConnection(second.jdbcUrl()).close();
    }
  }

  @Test
  void aSecuredFolderWhosePasswordFileIsGoneSaysWhatToDo(@TempDir Path dir) throws Exception {
    Path data = dir.resolve("pg");
    EmbeddedServer.start(data, Map.of()).postgres().close();
    Files.delete(dir.resolve("pg.password"));
    assertThatThrownBy(() -> EmbeddedServer.start(data, Map.of()))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("needs the password that was kept in " + dir.resolve("pg.password"))
        .hasMessageContaining("remove " + data);
  }

  private static String withoutPassword(String url) {
    return url.replaceAll("&password=[^&]*", "");
  }
}
