package dev.once.dashboard;

import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import dev.once.BrokerDeadLetterCounts;
import dev.once.DeadLetters;
import dev.once.jdbc.Dialect;
import dev.once.jdbc.Dialects;
import dev.once.spi.Transport;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator's web page over a Once database: backlog, rates and ages per consumer, outbox per
 * destination, operations by state, dead letters (grouped, paged, redacted, replay and discard) and
 * uncertain operations. Served by the JDK's HTTP server, charts by uPlot from its WebJar.
 *
 * <pre>{@code
 * DashboardListener rates = new DashboardListener();  // exact rates, duplicates included
 * Once once = Once.builder()...listener(rates).build();
 * Dashboard dashboard =
 *     Dashboard.builder(dataSource, once.deadLetters()).listener(rates).port(8080).build().start();
 * System.out.println(dashboard.urlWithToken());
 * }</pre>
 *
 * <p>Or mount it in the application's own {@link HttpServer}: {@code server.createContext("/once/",
 * dashboard.handler("/once/"))} after {@link #startSampling()}.
 *
 * <p>Safety: binds 127.0.0.1 by default and answers only to a loopback Host header there; every
 * state-changing request needs the token ({@code X-Once-Token}) and a same-origin {@code Origin};
 * {@code readOnly} turns replay, discard and reveal off. The token travels in the URL's fragment,
 * which browsers never send to a server.
 */
public final class Dashboard implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Dashboard.class);

  private final Builder config;
  private final DashboardListener counts;
  private final Sampler sampler;
  private final String token;
  private ScheduledExecutorService timer;
  private BrokerDeadLetterCounts brokerCounts;
  private HttpServer server;
  private ExecutorService workers;

  private Dashboard(Builder b) {
    this.config = b;
    this.token = b.token != null ? b.token : newToken();
    this.counts = b.listener;
    this.sampler = new Sampler(b.dataSource, b.dialect, b.clock, counts, b.sampleEvery, b.history);
  }

  public static Builder builder(DataSource dataSource, DeadLetters deadLetters) {
    return new Builder(dataSource, deadLetters);
  }

  /** The listener whose counts feed the rates (see {@link Builder#listener}). */
  public DashboardListener listener() {
    return counts;
  }

  /** Starts sampling and serving on the configured address. */
  public synchronized Dashboard start() {
    startSampling();
    try {
      InetAddress address = InetAddress.getByName(config.bind);
      server = HttpServer.create(new InetSocketAddress(address, config.port), 0);
    } catch (IOException e) {
      close();
      throw new UncheckedIOException(
          "the dashboard cannot listen on " + config.bind + ":" + config.port, e);
    }
    workers = Executors.newFixedThreadPool(4, daemon("once-dashboard-http"));
    server.setExecutor(workers);
    int port = server.getAddress().getPort();
    Set<String> hosts =
        server.getAddress().getAddress().isLoopbackAddress()
            ? Set.of("127.0.0.1:" + port, "localhost:" + port, "[::1]:" + port)
            : Set.of();
    server.createContext("/", handler("/", hosts));
    server.start();
    log.info("Once dashboard at {}{}", url(), config.readOnly ? " (read-only)" : "");
    return this;
  }

  /** Samples the workload every {@code sampleEvery} (done by {@link #start()}). */
  public synchronized void startSampling() {
    if (timer != null) {
      return;
    }
    timer = Executors.newSingleThreadScheduledExecutor(daemon("once-dashboard-sampler"));
    timer.scheduleWithFixedDelay(
        this::sampleQuietly, 0, config.sampleEvery.toMillis(), TimeUnit.MILLISECONDS);
    if (config.transport != null) {
      // on a thread of its own: a broker that does not answer must not stop the samples either
      brokerCounts =
          BrokerDeadLetterCounts.start(config.transport, config.brokerGroups, config.sampleEvery);
    }
  }

  /** Takes one sample now (tests, and a caller that samples on its own schedule). */
  public void sampleNow() {
    sampler.sample();
  }

  /** How many samples are kept (for tests). */
  int sampleCount() {
    return sampler.size();
  }

  private void sampleQuietly() {
    try {
      sampler.sample();
    } catch (RuntimeException e) {
      log.warn("dashboard sample failed: {}", e.toString());
    }
  }

  /**
   * The page and API for mounting at {@code path} (ending in '/') in an application's own server;
   * that server's binding and Host checks are the application's.
   */
  public HttpHandler handler(String path) {
    return handler(path, Set.of());
  }

  private HttpHandler handler(String path, Set<String> hosts) {
    if (!path.startsWith("/") || !path.endsWith("/")) {
      throw new IllegalArgumentException("path must start and end with '/', was '" + path + "'");
    }
    Guard guard = new Guard(token, config.readOnly, hosts);
    Actions actions = new Actions(config.deadLetters, guard, config.actor);
    return new Api(
        path,
        config.dataSource,
        config.dialect,
        config.deadLetters,
        sampler,
        guard,
        actions,
        config.clock,
        config.history,
        this::brokerDeadLetters);
  }

  /**
   * What the broker dead-lettered itself for a consumer, as last read in the background (a page
   * never waits for the broker), with the read's age; null where the transport cannot tell or has
   * not answered yet.
   */
  BrokerCount brokerDeadLetters(String consumer) {
    BrokerDeadLetterCounts counts;
    synchronized (this) {
      counts = brokerCounts;
    }
    if (counts == null || !counts.supported()) {
      return null;
    }
    OptionalLong n = counts.count(consumer);
    return n.isPresent()
        ? new BrokerCount(n.getAsLong(), counts.age(consumer).orElse(Duration.ZERO))
        : null;
  }

  /** A count of the broker's own dead letters and how long ago it was read. */
  record BrokerCount(long count, Duration age) {}

  /** {@code http://127.0.0.1:8080/} (the address it listens on). */
  public String url() {
    InetSocketAddress a = server.getAddress();
    String host = a.getAddress().isAnyLocalAddress() ? "127.0.0.1" : a.getHostString();
    if (host.contains(":")) {
      host = "[" + host + "]";
    }
    return "http://" + host + ":" + a.getPort() + "/";
  }

  /** The URL with the token in its fragment: what to open to be able to act. */
  public String urlWithToken() {
    return url() + "#token=" + token;
  }

  public String token() {
    return token;
  }

  public int port() {
    return server.getAddress().getPort();
  }

  public boolean readOnly() {
    return config.readOnly;
  }

  @Override
  public synchronized void close() {
    if (server != null) {
      server.stop(0);
      server = null;
    }
    if (workers != null) {
      workers.shutdownNow();
    }
    if (timer != null) {
      timer.shutdownNow();
      timer = null;
    }
    if (brokerCounts != null) {
      brokerCounts.close();
      brokerCounts = null;
    }
  }

  private static String newToken() {
    byte[] bytes = new byte[24];
    new SecureRandom().nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  private static java.util.concurrent.ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }

  /** Settings; {@link #build()} checks them. */
  public static final class Builder {
    private final DataSource dataSource;
    private final DeadLetters deadLetters;
    private Dialect dialect; // detected from the data source when not given
    private String bind = "127.0.0.1";
    private int port = 8080;
    private String token;
    private boolean readOnly;
    private String actor = "dashboard";
    private Duration sampleEvery = Duration.ofSeconds(2);
    private Duration history = Duration.ofMinutes(15);
    private Clock clock = Clock.systemUTC();
    private DashboardListener listener = new DashboardListener();
    private Transport transport;
    private Map<String, String> brokerGroups = Map.of();

    private Builder(DataSource dataSource, DeadLetters deadLetters) {
      this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
      this.deadLetters = Objects.requireNonNull(deadLetters, "deadLetters");
    }

    public Builder dialect(Dialect dialect) {
      this.dialect = dialect;
      return this;
    }

    /** The address to listen on (default 127.0.0.1: this machine only). */
    public Builder bind(String bind) {
      this.bind = bind;
      return this;
    }

    /** The port (default 8080; 0 picks a free one). */
    public Builder port(int port) {
      this.port = port;
      return this;
    }

    /** The token actions need (default: a random one, see {@link Dashboard#token()}). */
    public Builder token(String token) {
      this.token = token;
      return this;
    }

    public Builder readOnly(boolean readOnly) {
      this.readOnly = readOnly;
      return this;
    }

    /** Who the actions are recorded as (default {@code dashboard}). */
    public Builder actor(String actor) {
      this.actor = actor;
      return this;
    }

    public Builder sampleEvery(Duration every) {
      this.sampleEvery = every;
      return this;
    }

    /** How far back the charts reach (default 15 minutes). */
    public Builder history(Duration history) {
      this.history = history;
      return this;
    }

    /**
     * The listener also given to the consumers' {@code Once} in this process: rates are then
     * counted exactly, duplicates included. Without it they come from the rows in the database.
     */
    public Builder listener(DashboardListener listener) {
      this.listener = Objects.requireNonNull(listener, "dashboard.listener");
      return this;
    }

    /**
     * The transport whose broker may dead-letter messages itself (RabbitMQ: a group's {@code
     * <queue>.dead-letter} queue), and the consumer groups to ask about (consumer group →
     * destination): the overview shows those counts beside Once's dead letters ({@code
     * broker_dead_letters}, null where the transport cannot tell). Optional.
     */
    public Builder transport(Transport transport, Map<String, String> consumerDestinations) {
      this.transport = Objects.requireNonNull(transport, "dashboard.transport");
      this.brokerGroups = Map.copyOf(consumerDestinations);
      return this;
    }

    public Builder clock(Clock clock) {
      this.clock = clock;
      return this;
    }

    public Dashboard build() {
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("dashboard.port must be 0..65535, was " + port);
      }
      if (token != null && token.length() < 16) {
        throw new IllegalArgumentException(
            "dashboard.token must have at least 16 characters, had " + token.length());
      }
      if (sampleEvery.toMillis() < 100) {
        throw new IllegalArgumentException(
            "dashboard.sampleEvery must be >= 100 ms, was " + sampleEvery);
      }
      if (history.compareTo(sampleEvery.multipliedBy(2)) < 0 || history.toMinutes() < 1) {
        throw new IllegalArgumentException(
            "dashboard.history must be >= 1 minute and two samples, was " + history);
      }
      if (actor == null || actor.isBlank()) {
        throw new IllegalArgumentException("dashboard.actor must not be blank");
      }
      if (dialect == null) {
        dialect = Dialects.forDataSource(dataSource);
      }
      Objects.requireNonNull(clock, "dashboard.clock");
      Objects.requireNonNull(bind, "dashboard.bind");
      return new Dashboard(this);
    }
  }
}
