package dev.once.requests;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.once.ConfigurationException;
import dev.once.jdbc.Dialects;
import dev.once.jdbc.RequestKeysDialect;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import org.junit.jupiter.api.Test;

/**
 * MySQL runs the MariaDB dialect but has no {@code SET STATEMENT}, which request keys claim with:
 * they are refused by name when built, not accepted and broken at the first request. No MySQL
 * server here: the connection only answers what the check asks, the server's name and version.
 */
class RequestKeysOnMySqlTest {

  @Test
  void requestKeysOnAMySqlServerAreRefusedNamingIt() {
    RequestKeysDialect keys = Dialects.forProduct("MySQL").requestKeys();
    assertThatThrownBy(() -> keys.check(server("MySQL", "8.0.36")))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageContaining("'MySQL'")
        .hasMessageContaining("SET STATEMENT")
        .hasMessageContaining("MariaDB or PostgreSQL");
  }

  @Test
  void requestKeysOnAMariaDbServerAreAcceptedWhicheverDriverNamesIt() {
    RequestKeysDialect keys = Dialects.forProduct("MariaDB").requestKeys();
    assertThatCode(() -> keys.check(server("MariaDB", "10.11.6-MariaDB-0+deb12u1")))
        .doesNotThrowAnyException();
    // MySQL's own driver calls every server MySQL; the version still says MariaDB
    assertThatCode(() -> keys.check(server("MySQL", "10.11.6-MariaDB-0+deb12u1")))
        .doesNotThrowAnyException();
  }

  /** A connection to a server that reports {@code product} {@code version}, and nothing else. */
  private static Connection server(String product, String version) {
    DatabaseMetaData meta =
        (DatabaseMetaData)
            Proxy.newProxyInstance(
                RequestKeysOnMySqlTest.class.getClassLoader(),
                new Class<?>[] {DatabaseMetaData.class},
                (proxy, method, args) ->
                    switch (method.getName()) {
                      case "getDatabaseProductName" -> product;
                      case "getDatabaseProductVersion" -> version;
                      default -> throw new UnsupportedOperationException(method.getName());
                    });
    return (Connection)
        Proxy.newProxyInstance(
            RequestKeysOnMySqlTest.class.getClassLoader(),
            new Class<?>[] {Connection.class},
            (proxy, method, args) -> {
              if (method.getName().equals("getMetaData")) {
                return meta;
              }
              throw new UnsupportedOperationException(method.getName());
            });
  }
}
