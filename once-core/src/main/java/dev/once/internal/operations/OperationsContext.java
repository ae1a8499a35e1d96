package dev.once.internal.operations;

import dev.once.Tracing;
import dev.once.internal.EngineLifecycle;
import dev.once.internal.Listeners;
import dev.once.jdbc.OperationsDialect;
import java.time.Clock;
import javax.sql.DataSource;

/**
 * What operations and their reconcilers read of their {@code Once}, and nothing else.
 *
 * @param dataSource connections for a claim, the answer's statement and a reconciler's batch
 * @param operations the dialect's statements on {@code once_operation}
 * @param lifecycle tells the {@code Once} that a reconciler starts and stops
 */
public record OperationsContext(
    DataSource dataSource,
    OperationsDialect operations,
    Clock clock,
    Listeners listener,
    Tracing tracing,
    EngineLifecycle lifecycle) {}
