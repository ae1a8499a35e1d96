package dev.once.web;

import dev.once.Once;
import dev.once.OnceListener;
import dev.once.RequestFingerprint;
import dev.once.RequestKey;
import dev.once.RequestKeys;
import dev.once.RequestKeysConfig;
import dev.once.RequestResult;
import dev.once.RequestWork;
import dev.once.StoreException;
import dev.once.StoredResponse;
import dev.once.TxWork;
import dev.once.jdbc.RequestKeysDialect;
import dev.once.jdbc.RequestKeysDialect.StoredRequest;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * Broken twins of {@link RequestKeys}, the way Java idempotency libraries often do it, for the
 * tests to show they catch them.
 */
abstract class BrokenRequestKeys implements RequestKeys {
  final Once once;
  final DataSource dataSource;
  final RequestKeysDialect dialect;
  final OnceListener listener;

  BrokenRequestKeys(
      Once once, DataSource dataSource, RequestKeysDialect dialect, OnceListener listener) {
    this.once = once;
    this.dataSource = dataSource;
    this.dialect = dialect;
    this.listener = listener;
  }

  /** Looks the key up first and inserts it (with the response) only after the work ran. */
  static RequestKeys checkThenInsert(
      Once once, DataSource ds, RequestKeysDialect dialect, OnceListener listener) {
    return new BrokenRequestKeys(once, ds, dialect, listener) {
      @Override
      public RequestResult run(RequestKey key, RequestFingerprint fp, RequestWork work) {
        StoredRequest row = read(key);
        if (row != null) {
          return row.fingerprint().equals(fp.hex())
              ? RequestResult.replayed(row.response())
              : RequestResult.MISMATCH;
        }
        return committed(
            key,
            tx -> {
              StoredResponse r = work.run(tx);
              Instant now = Instant.now();
              dialect.claim(tx.connection(), key, fp.hex(), now, now.plus(Duration.ofDays(1)));
              dialect.complete(tx.connection(), key, r);
              listener.beforeRequestCommit(key);
              return RequestResult.executed(r);
            });
      }
    };
  }

  /** Commits the key in a transaction of its own, then runs the work in a second one. */
  static RequestKeys keyInItsOwnTransaction(
      Once once, DataSource ds, RequestKeysDialect dialect, OnceListener listener) {
    return new BrokenRequestKeys(once, ds, dialect, listener) {
      @Override
      public RequestResult run(RequestKey key, RequestFingerprint fp, RequestWork work) {
        boolean claimed =
            once.inTransaction(
                tx -> {
                  Instant now = Instant.now();
                  return dialect.claim(
                      tx.connection(), key, fp.hex(), now, now.plus(Duration.ofDays(1)));
                });
        if (!claimed) {
          StoredRequest row = read(key);
          if (row == null || row.response() == null) {
            return RequestResult.IN_PROGRESS;
          }
          return row.fingerprint().equals(fp.hex())
              ? RequestResult.replayed(row.response())
              : RequestResult.MISMATCH;
        }
        return committed(
            key,
            tx -> {
              StoredResponse r = work.run(tx);
              dialect.complete(tx.connection(), key, r);
              listener.beforeRequestCommit(key);
              return RequestResult.executed(r);
            });
      }
    };
  }

  RequestResult committed(RequestKey key, TxWork<RequestResult> work) {
    RequestResult r = once.inTransaction(work);
    listener.requestCommitted(key);
    return r;
  }

  StoredRequest read(RequestKey key) {
    try (Connection c = dataSource.getConnection()) {
      return dialect.find(c, key);
    } catch (SQLException e) {
      throw new StoreException("read " + key, e);
    }
  }

  @Override
  public Optional<StoredResponse> find(RequestKey key) {
    return Optional.ofNullable(read(key)).map(StoredRequest::response);
  }

  @Override
  public long deleteExpired() {
    return 0;
  }

  @Override
  public RequestKeys start() {
    return this;
  }

  @Override
  public RequestKeysConfig config() {
    return null;
  }

  @Override
  public void close() {}
}
