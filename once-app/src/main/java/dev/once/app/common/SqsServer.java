package dev.once.app.common;

import dev.once.sqs.embedded.EmbeddedSqs;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The SQS server of {@code --transport sqs} without {@code --sqs-endpoint}: ElasticMQ in this
 * process, queues in memory (gone when the process ends). Its endpoint is written to {@code
 * .once/sqs/endpoint}; another {@code once} process of this folder that finds that server listening
 * uses it instead of starting one, as a worker started beside a running demo does.
 */
public final class SqsServer {
  private static final Path ENDPOINT = Path.of(".once", "sqs", "endpoint");
  private static URI endpoint;

  private SqsServer() {}

  /** The embedded server's endpoint, starting it (once per process) if nobody runs it yet. */
  public static synchronized URI embedded() {
    if (endpoint != null) {
      return endpoint;
    }
    URI running = readEndpoint();
    if (running != null && listening(running)) {
      endpoint = running;
      return endpoint;
    }
    try {
      EmbeddedSqs sqs = EmbeddedSqs.start();
      Runtime.getRuntime().addShutdownHook(new Thread(sqs::close, "once-sqs-stop"));
      Files.createDirectories(ENDPOINT.getParent());
      Files.writeString(ENDPOINT, sqs.endpoint().toString(), StandardCharsets.UTF_8);
      endpoint = sqs.endpoint();
      return endpoint;
    } catch (IOException | RuntimeException e) {
      throw new UserError(
          "the embedded SQS server (ElasticMQ) did not start: "
              + e.getMessage()
              + "; give one with --sqs-endpoint",
          e);
    }
  }

  private static URI readEndpoint() {
    try {
      return URI.create(Files.readString(ENDPOINT, StandardCharsets.UTF_8).trim());
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  private static boolean listening(URI uri) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(uri.getHost(), uri.getPort()), 500);
      return true;
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }
}
