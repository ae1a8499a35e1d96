package dev.once.app;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import dev.once.spi.Outage;
import java.sql.BatchUpdateException;
import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.LoggerFactory;
import org.slf4j.Marker;

/**
 * HikariCP's warnings about connections the database dropped — one per pooled connection, each with
 * a stack trace — become one outage per pool ({@link Outage}): one WARN when the first connection
 * is lost, one INFO when the pool has added a connection again, the rest counted at DEBUG.
 * Installed as a logback turbo filter (logback.xml); the pool's other lines pass as they are.
 */
public final class PoolOutages extends TurboFilter {
  private static final String BROKEN =
      "{} - Connection {} marked as broken because of SQLSTATE({}), ErrorCode({})";
  private static final String INVALID =
      "{} - Failed to validate connection {} ({}). Possibly consider using a shorter maxLifetime"
          + " value.";
  private static final String ADDED = "{} - Added connection {}";
  private static final org.slf4j.Logger log = LoggerFactory.getLogger(PoolOutages.class);

  private final Map<String, Outage> outages = new ConcurrentHashMap<>();

  @Override
  public FilterReply decide(
      Marker marker, Logger logger, Level level, String format, Object[] params, Throwable t) {
    if (format == null
        || params == null
        || params.length < 2
        || !logger.getName().startsWith("com.zaxxer.hikari.")) {
      return FilterReply.NEUTRAL;
    }
    switch (format) {
      case ADDED -> {
        outage(params[0]).ended();
        return FilterReply.NEUTRAL;
      }
      case BROKEN -> { // params: pool, connection, SQLState, error code, exception
        outage(params[0]).failed("lost a connection: {}", reason(params, t));
        return FilterReply.DENY;
      }
      case INVALID -> {
        outage(params[0]).failed("lost a connection: {}", params.length > 2 ? params[2] : "");
        return FilterReply.DENY;
      }
      default -> {
        return FilterReply.NEUTRAL;
      }
    }
  }

  private Outage outage(Object pool) {
    return outages.computeIfAbsent(
        String.valueOf(pool), name -> new Outage(log, "database pool " + name));
  }

  /**
   * The SQLState and the driver's message, without the trace; never a batch's message, which quotes
   * its statement with the values (a payload).
   */
  private static String reason(Object[] params, Throwable t) {
    Throwable e = t;
    if (e == null && params[params.length - 1] instanceof Throwable last) {
      e = last; // slf4j's convention: a trailing exception argument is the event's throwable
    }
    if (e instanceof BatchUpdateException batch) {
      e = batch.getNextException(); // its own message quotes the batch's statement and values
    }
    if (e instanceof SQLException sql && !(e instanceof BatchUpdateException)) {
      String message =
          sql.getMessage() == null ? "" : sql.getMessage().lines().findFirst().orElse("");
      return "SQLSTATE " + sql.getSQLState() + ", " + message; // a driver may add the query below
    }
    return "SQLSTATE " + params[2];
  }
}
