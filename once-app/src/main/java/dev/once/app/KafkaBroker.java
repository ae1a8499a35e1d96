package dev.once.app;

import dev.once.kafka.embedded.EmbeddedKafka;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;

/**
 * The Kafka broker of {@code --transport kafka} without {@code --bootstrap}: a single-node KRaft
 * broker in this process, data in {@code .once/kafka}, on 127.0.0.1:{@value #PORT}. If another
 * {@code once} process of this folder already runs it (a demo, verify's parent), that one is used.
 */
public final class KafkaBroker {
  public static final Path EMBEDDED_DATA = Path.of(".once", "kafka");
  static final int PORT = 19092;
  static final int CONTROLLER_PORT = 19093;
  private static String address;

  private KafkaBroker() {}

  /** The embedded broker's address, starting it (once per process) if nobody runs it yet. */
  public static synchronized String embedded() {
    if (address != null) {
      return address;
    }
    if (listening(PORT)) {
      address = "127.0.0.1:" + PORT;
      return address;
    }
    try {
      EmbeddedKafka kafka = EmbeddedKafka.in(EMBEDDED_DATA, PORT, CONTROLLER_PORT).start();
      Runtime.getRuntime().addShutdownHook(new Thread(kafka::stop, "once-kafka-stop"));
      address = kafka.bootstrapServers();
      return address;
    } catch (RuntimeException e) {
      throw new UserError(
          "the embedded Kafka broker did not start in "
              + EMBEDDED_DATA
              + " (ports "
              + PORT
              + ", "
              + CONTROLLER_PORT
              + "): "
              + e.getMessage()
              + "; give a cluster with --bootstrap host:port",
          e);
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
}
