package dev.once.app.metrics;

import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/** Serves {@code GET /metrics} in the Prometheus text format with the JDK's own HTTP server. */
public final class MetricsServer implements AutoCloseable {
  private final HttpServer server;

  private MetricsServer(HttpServer server) {
    this.server = server;
  }

  /** The address served by default: this machine only. */
  public static final String LOOPBACK = "127.0.0.1";

  /** Starts serving {@code registry} on {@code port} (0: any free port) on 127.0.0.1 only. */
  public static MetricsServer start(int port, PrometheusMeterRegistry registry) {
    return start(LOOPBACK, port, registry);
  }

  /**
   * Starts serving {@code registry} on {@code bind}:{@code port}; {@code 0.0.0.0} serves every
   * interface (only do that behind a firewall: the metrics name your consumers and destinations).
   */
  public static MetricsServer start(String bind, int port, PrometheusMeterRegistry registry) {
    try {
      HttpServer server =
          HttpServer.create(new InetSocketAddress(InetAddress.getByName(bind), port), 0);
      server.createContext(
          "/metrics",
          exchange -> {
            byte[] body = registry.scrape().getBytes(StandardCharsets.UTF_8);
            exchange
                .getResponseHeaders()
                .set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
              out.write(body);
            }
          });
      server.start();
      return new MetricsServer(server);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot serve /metrics on " + bind + ":" + port, e);
    }
  }

  /** The address it listens on. */
  public InetSocketAddress address() {
    return server.getAddress();
  }

  public int port() {
    return server.getAddress().getPort();
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
