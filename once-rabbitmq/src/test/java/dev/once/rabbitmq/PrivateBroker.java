package dev.once.rabbitmq;

import dev.once.test.Services;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A RabbitMQ node of this test alone, which it may stop and start again mid-run: the machine's
 * {@code rabbitmq-server} run as a child process with a node name, ports, data, logs, plugins,
 * configuration and Erlang cookie (a home directory) of its own in a temporary directory. The
 * shared broker at 127.0.0.1:5672, which other tests use, is never touched. The AMQP listener is
 * set in the node's own configuration file (the machine's {@code /etc/rabbitmq/rabbitmq.conf} names
 * port 5672). Skipped where {@code rabbitmq-server} is not installed, failing in CI.
 */
final class PrivateBroker implements AutoCloseable {
  private static final Path BIN = Path.of("/usr/lib/rabbitmq/bin");
  private static final long START_TIMEOUT_MS = 90_000;

  private final Path dir;
  private final String node;
  private final int amqpPort;
  private final int distPort;
  private Process process;

  private PrivateBroker() throws IOException {
    this.dir = Files.createTempDirectory("once-faults-rabbit-");
    this.node = "once-faults-" + HexFormat.of().formatHex(random(4)) + "@localhost";
    this.amqpPort = freePort();
    int dist = freePort();
    while (dist == amqpPort) {
      dist = freePort();
    }
    this.distPort = dist;
    Files.writeString(
        dir.resolve("rabbitmq.conf"), "listeners.tcp.local = 127.0.0.1:" + amqpPort + "\n");
    Files.writeString(dir.resolve("enabled_plugins"), "[].\n");
    Files.writeString(dir.resolve("rabbitmq-env.conf"), "");
    Path cookie = dir.resolve(".erlang.cookie");
    Files.writeString(cookie, HexFormat.of().formatHex(random(20)).toUpperCase());
    Files.setPosixFilePermissions(cookie, PosixFilePermissions.fromString("r--------"));
  }

  /** Starts a new node; returns when it accepts AMQP connections. */
  static PrivateBroker start() {
    Path server = BIN.resolve("rabbitmq-server");
    if (!Files.isExecutable(server) || !Files.isExecutable(BIN.resolve("rabbitmqctl"))) {
      Services.unavailable(
          "rabbitmq-server",
          server.toString(),
          new IOException("not installed"),
          "apt-get install rabbitmq-server");
    }
    PrivateBroker broker;
    try {
      broker = new PrivateBroker();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Runtime.getRuntime().addShutdownHook(new Thread(broker::kill));
    broker.startNode();
    return broker;
  }

  /** The AMQP URI of the node's default virtual host. */
  String uri() {
    return "amqp://guest:guest@127.0.0.1:" + amqpPort + "/";
  }

  String node() {
    return node;
  }

  /** Starts the node again on the same data; returns when it accepts AMQP connections. */
  synchronized void startNode() {
    if (process != null && process.isAlive()) {
      return;
    }
    ProcessBuilder pb = new ProcessBuilder(BIN.resolve("rabbitmq-server").toString());
    env(pb.environment());
    pb.redirectErrorStream(true);
    pb.redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("server.out").toFile()));
    try {
      process = pb.start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start rabbitmq-server", e);
    }
    long deadline = System.currentTimeMillis() + START_TIMEOUT_MS;
    while (!listening()) {
      if (!process.isAlive() || System.currentTimeMillis() > deadline) {
        throw new AssertionError(
            "private RabbitMQ node " + node + " did not start; its output: " + output());
      }
      sleep(100);
    }
    ctl("await_startup");
  }

  /** Stops the node ({@code rabbitmqctl stop}: a clean shutdown); returns when it is gone. */
  synchronized void stopNode() {
    if (process == null || !process.isAlive()) {
      return;
    }
    ctl("stop");
    try {
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        throw new AssertionError("private RabbitMQ node " + node + " did not stop in 60 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private boolean listening() {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", amqpPort), 200);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * Messages in {@code queue} of the node's default virtual host not acknowledged yet, ready or
   * delivered (as {@link Broker#messagesUnsettled(String, String)} counts them on the shared one).
   */
  long messagesUnsettled(String queue) {
    return Broker.messagesIn(
        ctl("list_queues", "-p", "/", "-q", "--no-table-headers", "name", "messages"),
        queue,
        "node " + node);
  }

  /** Runs rabbitmqctl against this node; fails the test if it fails. */
  String ctl(String... args) {
    List<String> command = new ArrayList<>(List.of(BIN.resolve("rabbitmqctl").toString()));
    command.addAll(List.of("-n", node));
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    env(pb.environment());
    try {
      Process p = pb.start();
      if (!p.waitFor(90, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new AssertionError(command + " took more than 90 s");
      }
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (p.exitValue() != 0) {
        throw new AssertionError(command + " exited " + p.exitValue() + ": " + out);
      }
      return out;
    } catch (IOException e) {
      throw new AssertionError("cannot run " + command + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted: " + command, e);
    }
  }

  private void env(Map<String, String> env) {
    env.put("HOME", dir.toString()); // the node's and the CLI's Erlang cookie
    env.put("RABBITMQ_NODENAME", node);
    env.put("RABBITMQ_DIST_PORT", Integer.toString(distPort));
    env.put("RABBITMQ_MNESIA_BASE", dir.resolve("mnesia").toString());
    env.put("RABBITMQ_LOG_BASE", dir.resolve("log").toString());
    env.put("RABBITMQ_PID_FILE", dir.resolve("pid").toString());
    env.put("RABBITMQ_ENABLED_PLUGINS_FILE", dir.resolve("enabled_plugins").toString());
    env.put("RABBITMQ_CONFIG_FILE", dir.resolve("rabbitmq.conf").toString());
    env.put("RABBITMQ_CONF_ENV_FILE", dir.resolve("rabbitmq-env.conf").toString());
    env.put("RABBITMQ_ADVANCED_CONFIG_FILE", dir.resolve("advanced.config").toString());
    env.put("ERL_EPMD_ADDRESS", "127.0.0.1");
  }

  private String output() {
    try {
      String out = Files.readString(dir.resolve("server.out"));
      return out.length() > 4_000 ? out.substring(out.length() - 4_000) : out;
    } catch (IOException e) {
      return "(none: " + e + ")";
    }
  }

  private synchronized void kill() {
    if (process != null && process.isAlive()) {
      process.destroyForcibly();
    }
  }

  @Override
  public void close() {
    try {
      stopNode();
    } catch (AssertionError e) {
      kill();
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // a temp directory left behind
    }
  }

  private static byte[] random(int n) {
    byte[] b = new byte[n];
    new SecureRandom().nextBytes(b);
    return b;
  }

  private static int freePort() {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
