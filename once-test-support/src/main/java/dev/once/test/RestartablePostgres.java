package dev.once.test;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A private embedded PostgreSQL (zonky, the same binaries as {@link TestDatabase#embedded()}) that
 * a test may stop and start again mid-run, on the same port and data directory, as {@code
 * pg_ctlcluster … restart} does to a server: the stop is a fast shutdown (sessions terminated,
 * every committed transaction on disk), the start recovers from the same files. fsync and
 * synchronous_commit are on. Never the shared server at 127.0.0.1:5432, which other tests use.
 */
public final class RestartablePostgres implements AutoCloseable {
  private final Path dataDirectory;
  private final int port;
  private final Map<String, String> serverConfig = new LinkedHashMap<>();
  private EmbeddedPostgres server;

  private RestartablePostgres(Map<String, String> extraConfig) {
    try {
      this.dataDirectory = Files.createTempDirectory("once-restartable-pg-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    this.port = freePort();
    serverConfig.put("fsync", "on");
    serverConfig.put("synchronous_commit", "on");
    serverConfig.putAll(extraConfig);
  }

  /** Starts a new server with fsync and synchronous_commit on, plus {@code extraConfig}. */
  public static RestartablePostgres start(Map<String, String> extraConfig) {
    RestartablePostgres pg = new RestartablePostgres(extraConfig);
    pg.start();
    return pg;
  }

  /** Starts the server on its data directory and port; returns when it accepts connections. */
  public synchronized void start() {
    if (server != null) {
      return;
    }
    try {
      // the first start on a copy of the machine's initdb template, a restart on its own files
      server =
          InitdbTemplate.start(
              dataDirectory,
              b -> {
                serverConfig.forEach(b::setServerConfig);
                return b.setPort(port);
              });
    } catch (IOException e) {
      throw new UncheckedIOException("embedded PostgreSQL did not start on port " + port, e);
    }
  }

  /** Stops the server (fast shutdown: sessions end, committed data stays); returns when down. */
  public synchronized void stop() {
    if (server == null) {
      return;
    }
    try {
      server.close();
    } catch (IOException e) {
      throw new UncheckedIOException("embedded PostgreSQL did not stop", e);
    } finally {
      server = null;
    }
  }

  /** The URL of database {@code postgres} as superuser {@code postgres}; valid across restarts. */
  public String jdbcUrl() {
    return "jdbc:postgresql://localhost:" + port + "/postgres?user=postgres";
  }

  public int port() {
    return port;
  }

  private static int freePort() {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    stop();
    InitdbTemplate.delete(dataDirectory);
  }
}
