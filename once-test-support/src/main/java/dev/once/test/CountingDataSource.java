package dev.once.test;

import dev.once.spi.ForwardingDataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

/**
 * A {@link DataSource} that counts the connections asked of it and the asks that failed: during a
 * fault, the attempts an engine makes (a hot loop shows as thousands). Failures are also counted
 * per thread name, to tell the engine's threads ({@code once-…}) from the test's own, and so are
 * the connections handed out (a worker's polls).
 */
public final class CountingDataSource extends ForwardingDataSource {
  private final AtomicLong asked = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();
  private final Map<String, AtomicLong> failedByThread = new ConcurrentHashMap<>();
  private final Map<String, AtomicLong> gotByThread = new ConcurrentHashMap<>();

  public CountingDataSource(DataSource delegate) {
    super(delegate);
  }

  /** Calls of getConnection so far. */
  public long asked() {
    return asked.get();
  }

  /** Calls of getConnection that threw so far. */
  public long failed() {
    return failed.get();
  }

  /** Calls of getConnection that threw so far on threads whose name starts with {@code prefix}. */
  public long failedOn(String prefix) {
    return failedByThread.entrySet().stream()
        .filter(e -> e.getKey().startsWith(prefix))
        .mapToLong(e -> e.getValue().get())
        .sum();
  }

  /**
   * Connections handed out so far to the thread named {@code thread}: each poll, claim or batch of
   * an engine's thread takes one, so a thread whose count stops growing has stopped working.
   */
  public long gotOn(String thread) {
    AtomicLong n = gotByThread.get(thread);
    return n == null ? 0 : n.get();
  }

  private Connection got(Connection c) {
    gotByThread
        .computeIfAbsent(Thread.currentThread().getName(), n -> new AtomicLong())
        .incrementAndGet();
    return c;
  }

  private void fail() {
    failed.incrementAndGet();
    failedByThread
        .computeIfAbsent(Thread.currentThread().getName(), n -> new AtomicLong())
        .incrementAndGet();
  }

  @Override
  public Connection getConnection() throws SQLException {
    asked.incrementAndGet();
    try {
      return got(delegate().getConnection());
    } catch (SQLException | RuntimeException e) {
      fail();
      throw e;
    }
  }

  @Override
  public Connection getConnection(String user, String password) throws SQLException {
    asked.incrementAndGet();
    try {
      return got(delegate().getConnection(user, password));
    } catch (SQLException | RuntimeException e) {
      fail();
      throw e;
    }
  }
}
