package dev.once.scenario.net;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;

/**
 * The JDK's HTTP server with {@code TCP_NODELAY} on its connections. Without it the server sends an
 * answer's headers and its body as two small writes, and Nagle's algorithm holds the body back
 * until the client acknowledges the headers, which the client delays (up to 40 ms on Linux): on
 * this machine a call to the provider simulator took 20 ms on average from one thread, 0.9 ms with
 * it (50 → 1 100 calls/s). The JDK reads the switch, the system property {@value #PROPERTY}, once:
 * when the first server of the JVM is created. So it is set here, before every server the scenario
 * creates, and by the {@code once} command at its start (for the dashboard's and metrics' servers).
 */
public final class NoDelayHttpServer {
  /** The JDK's switch (class {@code sun.net.httpserver.ServerConfig}). */
  public static final String PROPERTY = "sun.net.httpserver.nodelay";

  private NoDelayHttpServer() {}

  /** Sets the switch; effective if no HTTP server of the JDK was created in this JVM yet. */
  public static void enable() {
    System.setProperty(PROPERTY, "true");
  }

  /** {@link HttpServer#create(InetSocketAddress, int)} after {@link #enable()}. */
  public static HttpServer create(InetSocketAddress address, int backlog) throws IOException {
    enable();
    return HttpServer.create(address, backlog);
  }
}
