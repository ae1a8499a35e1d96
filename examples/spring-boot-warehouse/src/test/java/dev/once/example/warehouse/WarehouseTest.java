package dev.once.example.warehouse;

import dev.once.test.Services;
import dev.once.test.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The one application context of this test JVM: every test class extends this one and changes
 * nothing of its configuration, so Spring's context cache starts the application once. The database
 * is a fresh schema on the embedded PostgreSQL, or on the local server with {@code
 * -Dwarehouse.db=local} (skipped when it is down, failing in CI).
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "once.relay.idle-wait=100ms",
      "once.table.visibility-timeout=2s",
      "once.consumers.warehouse.idle-wait=200ms",
      "once.consumers.warehouse.retry-delay=50ms",
      "once.consumers.flaky.idle-wait=200ms",
      "once.consumers.flaky.retry-delay=50ms",
      "once.consumers.flaky.max-retry-delay=200ms",
      "once.consumers.flaky-broken.idle-wait=200ms",
      "once.consumers.flaky-broken.retry-delay=50ms",
      "once.consumers.flaky-broken.max-retry-delay=200ms",
      "once.consumers.poison.idle-wait=200ms",
      "once.consumers.poison.max-attempts=1",
      "once.consumers.slow.idle-wait=200ms",
      "once.consumers.slow.retry-delay=50ms",
      // run by HandlerKit only, never by the application
      "once.consumers.kit-broken.enabled=false",
      "once.metrics.refresh-interval=1s",
      "once.destinations=dispatch,parked",
      // the groups a platform probes: Once's health must never be in them
      "management.endpoint.health.probes.enabled=true"
    })
@Import(TestHandlers.class)
abstract class WarehouseTest {
  static final String DB = System.getProperty("warehouse.db", "embedded");
  private static String url;

  @Autowired DataSource dataSource;

  @DynamicPropertySource
  static void database(DynamicPropertyRegistry registry) {
    registry.add("spring.datasource.url", WarehouseTest::url);
    registry.add("spring.datasource.username", () -> "postgres");
    registry.add("spring.datasource.hikari.maximum-pool-size", () -> "40");
  }

  /** A fresh schema for this JVM's application, on the chosen server. */
  static synchronized String url() {
    if (url == null) {
      String base = "local".equals(DB) ? local() : TestDatabase.embeddedUrl();
      String schema = "warehouse_" + ProcessHandle.current().pid();
      try (Connection c = DriverManager.getConnection(base, "postgres", "");
          Statement s = c.createStatement()) {
        s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        s.execute("CREATE SCHEMA " + schema);
      } catch (SQLException e) {
        throw new IllegalStateException("could not create schema " + schema + ": " + e, e);
      }
      url = base + (base.contains("?") ? "&" : "?") + "currentSchema=" + schema;
    }
    return url;
  }

  private static String local() {
    try (Connection c = DriverManager.getConnection(TestDatabase.LOCAL_URL)) {
      c.isValid(2);
    } catch (SQLException e) {
      Services.unavailable(
          "local PostgreSQL",
          "127.0.0.1:5432",
          e,
          "pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start");
    }
    return TestDatabase.LOCAL_URL;
  }

  /** One number from the database, read on a connection of its own (committed data only). */
  long count(String sql, Object... params) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < params.length; i++) {
        ps.setObject(i + 1, params[i]);
      }
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(sql + ": " + e, e);
    }
  }
}
