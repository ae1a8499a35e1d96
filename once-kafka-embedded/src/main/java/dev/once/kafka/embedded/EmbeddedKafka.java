package dev.once.kafka.embedded;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.Feature;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * A single-node Kafka (KRaft, broker and controller in one) in this JVM, for tests and for {@code
 * once demo} with nothing installed. In a module of its own, {@code once-kafka-embedded}, with the
 * Kafka server artifacts it needs: a user of {@code once-kafka} gets only {@code kafka-clients}.
 *
 * <p>The data folder is formatted on first start and kept; {@link #stop()} and {@link #start()}
 * again run the same broker on the same ports (a broker restart).
 */
public final class EmbeddedKafka implements AutoCloseable {
  private final Path dir;
  private final int port;
  private final int controllerPort;
  private int advertisedPort;
  private KafkaRaftServer server;

  private EmbeddedKafka(Path dir, int port, int controllerPort) {
    this.dir = dir;
    this.port = port;
    this.controllerPort = controllerPort;
    this.advertisedPort = port;
  }

  /** A broker on free ports with its data in {@code dir}; not started yet. */
  public static EmbeddedKafka in(Path dir) {
    return new EmbeddedKafka(dir, freePort(), freePort());
  }

  /** A broker on these ports with its data in {@code dir}; not started yet. */
  public static EmbeddedKafka in(Path dir, int port, int controllerPort) {
    return new EmbeddedKafka(dir, port, controllerPort);
  }

  public String bootstrapServers() {
    return "127.0.0.1:" + port;
  }

  /** The port the broker listens on. */
  public int port() {
    return port;
  }

  /**
   * Tells clients to reach the broker at 127.0.0.1:{@code port} — a proxy in front of it, for tests
   * that break the network — instead of at its own port. Call before {@link #start()}.
   */
  public synchronized EmbeddedKafka advertise(int port) {
    this.advertisedPort = port;
    return this;
  }

  /** Starts the broker (formats its folder the first time); retries a few times on a slow box. */
  public synchronized EmbeddedKafka start() {
    if (server != null) {
      return this;
    }
    RuntimeException last = null;
    for (int attempt = 1; attempt <= 5; attempt++) {
      try {
        KafkaConfig config = KafkaConfig.fromProps(properties(), false);
        format();
        KafkaRaftServer s = new KafkaRaftServer(config, Time.SYSTEM);
        s.startup();
        server = s;
        return this;
      } catch (RuntimeException e) {
        last = e;
        try {
          Thread.sleep(500L * attempt);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          break;
        }
      }
    }
    throw new IllegalStateException("embedded Kafka did not start in " + dir, last);
  }

  /** Stops the broker; its data stays for {@link #start()}. */
  public synchronized void stop() {
    if (server != null) {
      KafkaRaftServer s = server;
      server = null;
      s.shutdown();
      s.awaitShutdown();
    }
  }

  public synchronized boolean running() {
    return server != null;
  }

  @Override
  public void close() {
    stop();
  }

  private Properties properties() {
    Properties p = new Properties();
    p.put("process.roles", "broker,controller");
    p.put("node.id", "1");
    p.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
    p.put(
        "listeners", "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort);
    p.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + advertisedPort);
    p.put("controller.listener.names", "CONTROLLER");
    p.put("inter.broker.listener.name", "PLAINTEXT");
    p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
    p.put("log.dirs", dir.resolve("data").toString());
    p.put("metadata.log.dir", dir.resolve("meta").toString());
    p.put("offsets.topic.replication.factor", "1");
    p.put("offsets.topic.num.partitions", "5");
    p.put("transaction.state.log.replication.factor", "1");
    p.put("transaction.state.log.min.isr", "1");
    p.put("transaction.state.log.num.partitions", "2");
    p.put("share.coordinator.state.topic.replication.factor", "1");
    p.put("share.coordinator.state.topic.min.isr", "1");
    p.put("group.initial.rebalance.delay.ms", "0");
    p.put("auto.create.topics.enable", "false");
    p.put("num.partitions", "1");
    p.put("default.replication.factor", "1");
    p.put("min.insync.replicas", "1");
    p.put("log.cleaner.dedupe.buffer.size", String.valueOf(4 * 1024 * 1024));
    p.put("log.flush.interval.messages", "1"); // single node: fsync each append, like acks=all
    p.put("num.network.threads", "2");
    p.put("num.io.threads", "4");
    return p;
  }

  private void format() {
    try {
      Files.createDirectories(dir);
      if (Files.exists(dir.resolve("meta").resolve("meta.properties"))) {
        return;
      }
      new Formatter()
          .setPrintStream(new java.io.PrintStream(java.io.OutputStream.nullOutputStream()))
          .setNodeId(1)
          .setClusterId(Uuid.randomUuid().toString())
          .setDirectories(java.util.List.of(dir.resolve("data").toString()))
          .addDirectory(dir.resolve("meta").toString())
          .setMetadataLogDirectory(dir.resolve("meta").toString())
          .setReleaseVersion(MetadataVersion.latestProduction())
          .setSupportedFeatures(Feature.PRODUCTION_FEATURES)
          .setControllerListenerName("CONTROLLER")
          .setIgnoreFormatted(true)
          .run();
    } catch (Exception e) {
      throw new IllegalStateException("could not format the Kafka data folder " + dir, e);
    }
  }

  private static int freePort() {
    try (ServerSocket s = new ServerSocket(0)) {
      s.setReuseAddress(true);
      return s.getLocalPort();
    } catch (IOException e) {
      throw new IllegalStateException("no free port", e);
    }
  }
}
