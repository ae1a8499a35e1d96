package dev.once.internal.requests;

import dev.once.OnceException;
import dev.once.RequestFingerprint;
import dev.once.RequestKey;
import dev.once.RequestKeys;
import dev.once.RequestKeysConfig;
import dev.once.RequestResult;
import dev.once.RequestWork;
import dev.once.SchemaMissingException;
import dev.once.StoreException;
import dev.once.StoredResponse;
import dev.once.internal.EngineThread;
import dev.once.internal.OnceImpl;
import dev.once.internal.Pause;
import dev.once.jdbc.RequestKeysDialect;
import dev.once.jdbc.RequestKeysDialect.StoredRequest;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Request keys over a dialect's {@code once_request} part. A request is one Once transaction: claim
 * (one statement that never waits on another holder), the work, the response stored (one
 * statement), commit. A key found stored is one more read; nothing of the work runs.
 */
public final class RequestKeysImpl implements RequestKeys {
  private static final Logger log = LoggerFactory.getLogger(RequestKeysImpl.class);
  private static final Duration MAX_POLL = Duration.ofMillis(100);

  private final OnceImpl once;
  private final RequestKeysConfig config;
  private final RequestKeysDialect dialect;
  private final Clock clock;
  private final EngineThread thread = new EngineThread("once-request-keys");

  public RequestKeysImpl(OnceImpl once, RequestKeysConfig config) {
    this.once = once;
    this.config = config;
    this.dialect = once.dialect().requestKeys();
    this.clock = once.config().clock();
    checkTable();
  }

  private void checkTable() {
    try (Connection c = once.dataSource().getConnection()) {
      if (!once.dialect().status().tableExists(c, "once_request")) {
        throw SchemaMissingException.tableNotFound(
            "once_request",
            once.dialect().status().currentSchema(c),
            once.dialect().status().schemaNote());
      }
      dialect.check(c);
    } catch (SQLException e) {
      throw new StoreException("check the once_request table", e);
    }
  }

  @Override
  public RequestResult run(RequestKey key, RequestFingerprint fingerprint, RequestWork work) {
    Instant deadline = clock.instant().plus(config.maxWait());
    for (int attempt = 1; ; attempt++) {
      RequestResult r = attempt(key, fingerprint, work);
      if (r.status() != RequestResult.Status.IN_PROGRESS || !clock.instant().isBefore(deadline)) {
        return r;
      }
      Pause.sleep(min(Duration.ofMillis(10L * attempt), MAX_POLL));
    }
  }

  private RequestResult attempt(RequestKey key, RequestFingerprint fingerprint, RequestWork work) {
    RequestResult result =
        once.inTransaction(
            tx -> {
              Connection c = tx.connection();
              Instant now = clock.instant();
              if (!dialect.claim(c, key, fingerprint.hex(), now, now.plus(config.retention()))) {
                return stored(dialect.find(c, key), key, fingerprint);
              }
              StoredResponse response = work.run(tx);
              if (response == null) {
                throw new OnceException("request " + key + ": the work returned no response");
              }
              checkSize(key, response);
              dialect.complete(c, key, response);
              once.listener().beforeRequestCommit(key);
              return RequestResult.executed(response);
            });
    if (result.status() == RequestResult.Status.EXECUTED) {
      once.listener().requestCommitted(key);
    }
    return result;
  }

  private static RequestResult stored(
      StoredRequest row, RequestKey key, RequestFingerprint fingerprint) {
    if (row == null) {
      return RequestResult.IN_PROGRESS;
    }
    if (!row.fingerprint().equals(fingerprint.hex())) {
      return RequestResult.MISMATCH;
    }
    if (row.response() == null) {
      log.warn("request key {} is stored without a response: answered as in progress", key);
      return RequestResult.IN_PROGRESS;
    }
    return RequestResult.replayed(row.response());
  }

  private void checkSize(RequestKey key, StoredResponse response) {
    if (response.bodyLength() > config.maxResponseBytes()) {
      throw new OnceException(
          "request "
              + key
              + ": the response body of "
              + response.bodyLength()
              + " bytes is over requestKeys.maxResponseBytes "
              + config.maxResponseBytes()
              + "; nothing is stored and the transaction rolled back");
    }
  }

  @Override
  public Optional<StoredResponse> find(RequestKey key) {
    try (Connection c = once.dataSource().getConnection()) {
      StoredRequest row = dialect.find(c, key);
      return Optional.ofNullable(row == null ? null : row.response());
    } catch (SQLException e) {
      throw new StoreException("read request key " + key, e);
    }
  }

  @Override
  public long deleteExpired() {
    long total = 0;
    try (Connection c = once.dataSource().getConnection()) {
      c.setAutoCommit(true);
      int n;
      do {
        n = dialect.deleteExpired(c, clock.instant(), config.batchSize());
        total += n;
      } while (n == config.batchSize() && (thread.running() || !thread.started()));
    } catch (SQLException e) {
      throw new StoreException("delete expired request keys", e);
    }
    return total;
  }

  @Override
  public RequestKeys start() {
    if (thread.start(this::loop)) {
      once.started(this);
    }
    return this;
  }

  private void loop() {
    while (thread.running()) {
      try {
        long n = deleteExpired();
        if (n > 0) {
          log.info("deleted {} expired request keys", n);
        }
      } catch (RuntimeException e) {
        log.warn(
            "request key cleanup failed; next in {}: {}", config.cleanupInterval(), e.toString());
      }
      Pause.sleep(config.cleanupInterval());
    }
  }

  @Override
  public RequestKeysConfig config() {
    return config;
  }

  @Override
  public void close() {
    thread.stop();
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }
}
