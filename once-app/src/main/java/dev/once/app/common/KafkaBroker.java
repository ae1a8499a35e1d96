package dev.once.app.common;

import dev.once.kafka.embedded.EmbeddedKafka;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The Kafka broker of {@code --transport kafka} without {@code --bootstrap}: a single-node KRaft
 * broker in this process, data in {@code .once/kafka}. Its ports are written to {@code
 * .once/kafka/ports}; another {@code once} process of this folder that finds that broker listening
 * uses it instead of starting one. No fixed port: several folders (and checkouts) on one machine
 * each get their own broker.
 */
public final class KafkaBroker {
  public static final Path EMBEDDED_DATA = Path.of(".once", "kafka");
  private static final Path PORTS = EMBEDDED_DATA.resolve("ports");
  private static String address;

  private KafkaBroker() {}

  /** The embedded broker's address, starting it (once per process) if nobody runs it yet. */
  public static synchronized String embedded() {
    if (address != null) {
      return address;
    }
    int[] ports = readPorts();
    if (ports != null && listening(ports[0])) {
      address = "127.0.0.1:" + ports[0];
      return address;
    }
    if (ports == null || !free(ports[0]) || !free(ports[1])) {
      ports = new int[] {freePort(), freePort()};
    }
    try {
      Files.createDirectories(EMBEDDED_DATA);
      Files.writeString(PORTS, ports[0] + " " + ports[1], StandardCharsets.UTF_8);
      EmbeddedKafka kafka = EmbeddedKafka.in(EMBEDDED_DATA, ports[0], ports[1]).start();
      Runtime.getRuntime().addShutdownHook(new Thread(kafka::stop, "once-kafka-stop"));
      address = kafka.bootstrapServers();
      return address;
    } catch (IOException | RuntimeException e) {
      throw new UserError(
          "the embedded Kafka broker did not start in "
              + EMBEDDED_DATA
              + ": "
              + e.getMessage()
              + "; give a cluster with --bootstrap host:port",
          e);
    }
  }

  private static int[] readPorts() {
    try {
      String[] p = Files.readString(PORTS, StandardCharsets.UTF_8).trim().split("\\s+");
      return new int[] {Integer.parseInt(p[0]), Integer.parseInt(p[1])};
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  private static boolean listening(int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 500);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static boolean free(int port) {
    try (ServerSocket s = new ServerSocket()) {
      s.setReuseAddress(true);
      s.bind(new InetSocketAddress("127.0.0.1", port));
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static int freePort() {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UserError("no free port for the embedded Kafka broker", e);
    }
  }
}
