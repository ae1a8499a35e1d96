package dev.once;

import java.sql.SQLException;

/** The database refused or failed a statement Once needed. Carries the SQLState. */
public class StoreException extends OnceException {
  private static final long serialVersionUID = 1L;
  private final String action;
  private final String sqlState;

  public StoreException(String action, SQLException cause) {
    super(
        action + " failed: " + cause.getMessage() + " (SQLState " + cause.getSQLState() + ")",
        cause);
    this.action = action;
    this.sqlState = cause.getSQLState();
  }

  /** What Once was doing, e.g. {@code insert inbox marker}. */
  public String action() {
    return action;
  }

  public String sqlState() {
    return sqlState;
  }
}
