package dev.once.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.once.app.common.Database;
import dev.once.test.TestDatabase;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Every server a {@code once} command starts listens on 127.0.0.1 unless told otherwise: the
 * worker's {@code /metrics} and dashboard, and the embedded PostgreSQL. Read from the kernel's
 * table of listening sockets ({@code /proc/net/tcp}, {@code /proc/net/tcp6}), not from our code.
 */
class LoopbackOnlyTest {

  @Test
  void theWorkersMetricsAndDashboardListenOnTheLoopbackAddressOnly() throws Exception {
    String schema = "loopback_" + ProcessHandle.current().pid();
    int metrics = freePort();
    int dashboard = freePort();
    Path log = Files.createTempFile("once-worker", ".log");
    Process worker =
        new ProcessBuilder(
                java(
                    "worker",
                    "--db",
                    TestDatabase.embeddedUrl(),
                    "--schema",
                    schema,
                    "--relays",
                    "0",
                    "--threads",
                    "1",
                    "--metrics-port",
                    Integer.toString(metrics),
                    "--dashboard",
                    "--dashboard-port",
                    Integer.toString(dashboard)))
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    try {
      await()
          .atMost(Duration.ofSeconds(90))
          .until(() -> !listeners(metrics).isEmpty() && !listeners(dashboard).isEmpty());
      assertThat(listeners(metrics)).as(Files.readString(log)).containsOnly("127.0.0.1");
      assertThat(listeners(dashboard)).containsOnly("127.0.0.1");
      // the line is printed after the socket is bound: CI once read the log between the two
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () ->
                  assertThat(Files.readString(log))
                      .contains("metrics at http://127.0.0.1:" + metrics));
    } finally {
      worker.destroy();
      if (!worker.waitFor(20, TimeUnit.SECONDS)) {
        worker.destroyForcibly();
      }
      try (var c = DriverManager.getConnection(TestDatabase.embeddedUrl());
          Statement s = c.createStatement()) {
        s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
      }
      Files.deleteIfExists(log);
    }
  }

  @Test
  void theEmbeddedPostgresqlListensOnTheLoopbackAddressOnly() throws Exception {
    try (Database db = Database.openScenario(null, null, 1)) {
      int port =
          Integer.parseInt(db.jdbcUrl().replaceAll("^jdbc:postgresql://localhost:(\\d+)/.*", "$1"));
      assertThat(listeners(port))
          .isNotEmpty()
          .allMatch(a -> a.equals("127.0.0.1") || a.equals("::1"));
    }
  }

  /** The local addresses listening on TCP {@code port}, from the kernel's tables. */
  static List<String> listeners(int port) throws IOException {
    List<String> found = new ArrayList<>();
    for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
      List<String> lines = Files.readAllLines(Path.of(table));
      for (String line : lines.subList(1, lines.size())) {
        String[] f = line.trim().split("\\s+");
        String[] local = f[1].split(":");
        if (f[3].equals("0A") && Integer.parseInt(local[1], 16) == port) {
          found.add(address(local[0]));
        }
      }
    }
    return found;
  }

  /** /proc/net's hex address (little-endian words) as text. */
  private static String address(String hex) {
    if (hex.length() == 8) {
      return Integer.parseInt(hex.substring(6, 8), 16)
          + "."
          + Integer.parseInt(hex.substring(4, 6), 16)
          + "."
          + Integer.parseInt(hex.substring(2, 4), 16)
          + "."
          + Integer.parseInt(hex.substring(0, 2), 16);
    }
    String h = hex.toUpperCase(Locale.ROOT);
    if (h.equals("00000000000000000000000001000000")) {
      return "::1";
    }
    if (h.equals("0000000000000000FFFF00000100007F")) {
      return "127.0.0.1";
    }
    return h.equals("00000000000000000000000000000000") ? "::" : h;
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  private static List<String> java(String... args) {
    List<String> command =
        new ArrayList<>(
            List.of(
                ProcessHandle.current().info().command().orElse("java"),
                "-Xmx256m",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("java.class.path"),
                Main.class.getName()));
    command.addAll(List.of(args));
    return command;
  }
}
