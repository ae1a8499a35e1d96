package dev.once.internal.retention;

import dev.once.RetentionPolicy;
import dev.once.internal.EngineLifecycle;
import dev.once.jdbc.Dialect;
import java.time.Clock;
import javax.sql.DataSource;

/**
 * What the retention janitor reads of its {@code Once}, and nothing else.
 *
 * @param dataSource the session a round takes its lock on and deletes with
 * @param dialect its retention statements and which errors are transient
 * @param policy what is old, and the batch size
 * @param lifecycle tells the {@code Once} that the janitor starts and stops
 */
public record RetentionContext(
    DataSource dataSource,
    Dialect dialect,
    RetentionPolicy policy,
    Clock clock,
    EngineLifecycle lifecycle) {}
