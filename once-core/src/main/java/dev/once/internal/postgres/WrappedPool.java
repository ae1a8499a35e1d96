package dev.once.internal.postgres;

import javax.sql.DataSource;

/**
 * A data source that wraps a pool (to bound its connections, say) and says which: PostgreSQL's
 * listener holds one {@code LISTEN} per pool, whichever wrapper of it asks.
 */
public interface WrappedPool {
  /** The pool this data source's connections come from. */
  DataSource pool();

  /** The pool behind {@code dataSource} if it is a {@code WrappedPool}, else itself. */
  static DataSource of(DataSource dataSource) {
    return dataSource instanceof WrappedPool w ? w.pool() : dataSource;
  }
}
