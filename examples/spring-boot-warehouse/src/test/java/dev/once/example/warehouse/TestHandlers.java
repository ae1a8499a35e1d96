package dev.once.example.warehouse;

import com.zaxxer.hikari.HikariDataSource;
import dev.once.Once;
import dev.once.Operations;
import dev.once.ProviderLookup;
import dev.once.ReceivedEvent;
import dev.once.Tx;
import dev.once.spring.OnceHandler;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/** Handlers the tests need beside the application's own: flaky, poisoned and broken ones. */
@TestConfiguration(proxyBeanMethods = false)
class TestHandlers {

  /** What a handler saw, at the start of an attempt, of the attempts before it (committed data). */
  record Seen(int attempt, long jobs, long markers) {}

  /**
   * Fails its first two attempts of each event after writing the job through JPA (flushed, so the
   * row is really in the database when it throws); the third attempt succeeds.
   */
  static class FlakyHandler {
    final Map<String, List<Seen>> seen = new ConcurrentHashMap<>();
    private final DispatchJobRepository jobs;
    private final DataSource dataSource;
    private final String consumer;

    FlakyHandler(DispatchJobRepository jobs, DataSource dataSource, String consumer) {
      this.jobs = jobs;
      this.dataSource = dataSource;
      this.consumer = consumer;
    }

    void handle(OrderPaid paid, ReceivedEvent event, Runnable write) throws SQLException {
      List<Seen> mine = seen.computeIfAbsent(event.id().value(), k -> new CopyOnWriteArrayList<>());
      int attempt = mine.size() + 1;
      mine.add(new Seen(attempt, committed(JOBS, event), committed(MARKERS, event)));
      write.run();
      if (attempt < 3) {
        throw new IllegalStateException("attempt " + attempt + " of " + event.id() + " fails");
      }
    }

    private static final String JOBS = "SELECT count(*) FROM dispatch_jobs WHERE event_id = ?";
    private static final String MARKERS =
        "SELECT count(*) FROM once_inbox WHERE event_id = ? AND consumer_id = ?";

    private long committed(String sql, ReceivedEvent event) throws SQLException {
      try (Connection c = dataSource.getConnection(); // a pool connection of its own
          PreparedStatement ps = c.prepareStatement(sql)) {
        ps.setString(1, event.id().value());
        if (sql.contains("consumer_id")) {
          ps.setString(2, consumer);
        }
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          return rs.getLong(1);
        }
      }
    }

    void saveJob(OrderPaid paid, ReceivedEvent event) {
      jobs.saveAndFlush(new DispatchJob(paid.orderId(), event.id().value()));
    }
  }

  /** The correct flaky handler: its JPA write is in the handler's transaction. */
  static class Flaky extends FlakyHandler {
    Flaky(DispatchJobRepository jobs, DataSource dataSource) {
      super(jobs, dataSource, "flaky");
    }

    @OnceHandler(consumer = "flaky", destination = "flaky-orders")
    public void on(OrderPaid paid, ReceivedEvent event) throws SQLException {
      handle(paid, event, () -> saveJob(paid, event));
    }
  }

  /** Broken on purpose: its JPA write runs in a transaction of its own (REQUIRES_NEW). */
  static class FlakyBroken extends FlakyHandler {
    private final TransactionTemplate requiresNew;

    FlakyBroken(DispatchJobRepository jobs, DataSource dataSource, PlatformTransactionManager tm) {
      super(jobs, dataSource, "flaky-broken");
      this.requiresNew = new TransactionTemplate(tm);
      requiresNew.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
    }

    @OnceHandler(consumer = "flaky-broken", destination = "flaky-broken-orders")
    public void on(OrderPaid paid, ReceivedEvent event) throws SQLException {
      handle(paid, event, () -> requiresNew.executeWithoutResult(s -> saveJob(paid, event)));
    }
  }

  /**
   * Counts its calls per event, for SavepointsPerDeliveryTest: saves the job through JPA (not
   * flushed: the persistence context holds it) and, on the first attempt of every fifth order,
   * throws after the save.
   */
  static class Counted {
    final Map<String, java.util.concurrent.atomic.AtomicInteger> calls = new ConcurrentHashMap<>();
    private final DispatchJobRepository jobs;

    Counted(DispatchJobRepository jobs) {
      this.jobs = jobs;
    }

    @OnceHandler(consumer = "counted", destination = "counted-orders")
    public void on(OrderPaid paid, ReceivedEvent event) {
      int call =
          calls
              .computeIfAbsent(
                  event.id().value(), k -> new java.util.concurrent.atomic.AtomicInteger())
              .incrementAndGet();
      jobs.save(new DispatchJob(paid.orderId(), event.id().value()));
      if (paid.orderId() % 5 == 0 && call == 1) {
        throw new IllegalStateException("first attempt of " + event.id() + " fails");
      }
    }
  }

  /** Always fails: its events end as dead letters (the test context sets max-attempts 1). */
  static class Poison {
    @OnceHandler(consumer = "poison", destination = "poison-orders")
    public void on(ReceivedEvent event) {
      throw new IllegalStateException("poison " + event.id());
    }
  }

  /**
   * Broken on purpose: writes its effect through a second DataSource (its own pool), so the write
   * commits on its own, apart from the marker. Run only by HandlerKit (the consumer is disabled).
   */
  static class SecondDataSourceHandler implements AutoCloseable {
    private final HikariDataSource second;
    private final JdbcTemplate jdbc;

    SecondDataSourceHandler(HikariDataSource first) {
      this.second = new HikariDataSource();
      second.setJdbcUrl(first.getJdbcUrl());
      second.setUsername(first.getUsername());
      second.setMaximumPoolSize(4);
      second.setPoolName("second");
      this.jdbc = new JdbcTemplate(second);
    }

    @OnceHandler(consumer = "kit-broken", destination = "kit-broken-orders")
    public void on(OrderPaid paid, ReceivedEvent event) {
      jdbc.update(
          "INSERT INTO dispatch_jobs (order_id, event_id) VALUES (?, ?)",
          paid.orderId(),
          event.id().value());
    }

    @Override
    public void close() {
      second.close();
    }
  }

  /**
   * Takes the connection's {@link Tx} for {@code applyIfNewer} and only the {@code PriceChanged}
   * events of its destination; records what it applied.
   */
  static class Prices {
    final List<String> applied = new CopyOnWriteArrayList<>();

    @OnceHandler(consumer = "prices", destination = "prices", types = "PriceChanged")
    public void on(Tx tx, ReceivedEvent event, String text) {
      long version = Long.parseLong(text);
      if (tx.applyIfNewer("price", event.event().key(), version)) {
        applied.add(event.event().key() + "@" + version);
      }
    }
  }

  /**
   * Signals when it has started an event, then keeps working for half a second whatever happens to
   * its thread (an interrupt included) before it writes the job.
   */
  static class Slow {
    final java.util.concurrent.CountDownLatch entered = new java.util.concurrent.CountDownLatch(1);
    private final DispatchJobRepository jobs;

    Slow(DispatchJobRepository jobs) {
      this.jobs = jobs;
    }

    @OnceHandler(consumer = "slow", destination = "slow-orders")
    public void on(OrderPaid paid, ReceivedEvent event) {
      entered.countDown();
      long until = System.nanoTime() + 500_000_000L;
      while (System.nanoTime() < until) {
        java.util.concurrent.locks.LockSupport.parkNanos(until - System.nanoTime());
      }
      jobs.save(new DispatchJob(paid.orderId(), event.id().value()));
    }
  }

  @Bean
  Slow slow(DispatchJobRepository jobs) {
    return new Slow(jobs);
  }

  /** A payment provider that counts the charges it made, per idempotency key. */
  static class FakeProvider {
    final Map<String, Integer> charges = new ConcurrentHashMap<>();

    String charge(String key, String request) {
      charges.merge(key, 1, Integer::sum);
      return "{\"charge\":\"" + key + "\"}";
    }
  }

  /** Records a charge inside the consumer's transaction; the reconciler bean performs it. */
  static class Charges {
    private final Operations payments;

    Charges(Operations payments) {
      this.payments = payments;
    }

    @OnceHandler(consumer = "charges", destination = "charge-orders")
    public void on(OrderPaid paid, Tx tx, ReceivedEvent event) {
      payments.request(tx, "charge:" + paid.orderId(), "{\"cents\":" + paid.amountCents() + "}");
    }
  }

  @Bean
  FakeProvider fakeProvider() {
    return new FakeProvider();
  }

  @Bean
  Operations payments(Once once, FakeProvider provider) {
    return once.operations("fake-payments")
        .call(provider::charge)
        .idempotencyWindow(java.time.Duration.ofHours(24))
        .lookup(ProviderLookup.NONE)
        .whenUncertain(dev.once.ReconcilePolicy.PREFER_MISSED)
        .reconcileInterval(java.time.Duration.ofMillis(100))
        .build();
  }

  @Bean
  Charges charges(Operations payments) {
    return new Charges(payments);
  }

  @Bean
  Prices prices() {
    return new Prices();
  }

  @Bean
  Flaky flaky(DispatchJobRepository jobs, DataSource dataSource) {
    return new Flaky(jobs, dataSource);
  }

  @Bean
  FlakyBroken flakyBroken(
      DispatchJobRepository jobs, DataSource dataSource, PlatformTransactionManager tm) {
    return new FlakyBroken(jobs, dataSource, tm);
  }

  @Bean
  Counted counted(DispatchJobRepository jobs) {
    return new Counted(jobs);
  }

  @Bean
  Poison poison() {
    return new Poison();
  }

  @Bean
  SecondDataSourceHandler secondDataSourceHandler(DataSource dataSource) {
    return new SecondDataSourceHandler((HikariDataSource) dataSource);
  }
}
