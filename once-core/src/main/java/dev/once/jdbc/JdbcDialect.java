package dev.once.jdbc;

import java.sql.SQLException;
import java.util.List;

/**
 * A dialect of the standard JDBC parts over one {@link SqlFlavour}; its name, schema and error
 * classes are the flavour's. {@link #of} is the whole dialect of a new database; {@link #builder}
 * replaces a part where the database has a faster form of its statements.
 */
public final class JdbcDialect implements Dialect {
  private final SqlFlavour flavour;
  private final StoreDialect store;
  private final QueueDialect queue;
  private final OperationsDialect operations;
  private final AttemptsDialect attempts;
  private final DeadLettersDialect deadLetters;
  private final RetentionDialect retention;
  private final StatusDialect status;
  private final RequestKeysDialect requestKeys;

  private JdbcDialect(Builder b) {
    this.flavour = b.flavour;
    this.store = b.store == null ? new JdbcStore(flavour) : b.store;
    this.queue = b.queue == null ? new JdbcQueue(flavour) : b.queue;
    this.operations = b.operations == null ? new JdbcOperations(flavour) : b.operations;
    this.attempts = b.attempts == null ? new JdbcAttempts(flavour) : b.attempts;
    this.deadLetters = b.deadLetters == null ? new JdbcDeadLetters(flavour) : b.deadLetters;
    this.retention = b.retention == null ? new JdbcRetention(flavour) : b.retention;
    this.status = b.status == null ? new JdbcStatus(flavour) : b.status;
    this.requestKeys = b.requestKeys == null ? new JdbcRequestKeys(flavour) : b.requestKeys;
  }

  /** Every part the standard one, over {@code flavour}. */
  public static JdbcDialect of(SqlFlavour flavour) {
    return builder(flavour).build();
  }

  /** Parts to replace; those not given are the standard ones. */
  public static Builder builder(SqlFlavour flavour) {
    if (flavour == null) {
      throw new IllegalArgumentException("flavour is required");
    }
    return new Builder(flavour);
  }

  /** This dialect with another store part: for tests that need a deliberately broken one. */
  public JdbcDialect withStore(StoreDialect store) {
    return new Builder(this).store(store).build();
  }

  /** Which parts replace the standard ones. */
  public static final class Builder {
    private final SqlFlavour flavour;
    private StoreDialect store;
    private QueueDialect queue;
    private OperationsDialect operations;
    private AttemptsDialect attempts;
    private DeadLettersDialect deadLetters;
    private RetentionDialect retention;
    private StatusDialect status;
    private RequestKeysDialect requestKeys;

    private Builder(SqlFlavour flavour) {
      this.flavour = flavour;
    }

    private Builder(JdbcDialect d) {
      this(d.flavour);
      store = d.store;
      queue = d.queue;
      operations = d.operations;
      attempts = d.attempts;
      deadLetters = d.deadLetters;
      retention = d.retention;
      status = d.status;
      requestKeys = d.requestKeys;
    }

    public Builder store(StoreDialect store) {
      this.store = store;
      return this;
    }

    public Builder queue(QueueDialect queue) {
      this.queue = queue;
      return this;
    }

    public Builder operations(OperationsDialect operations) {
      this.operations = operations;
      return this;
    }

    public Builder attempts(AttemptsDialect attempts) {
      this.attempts = attempts;
      return this;
    }

    public Builder deadLetters(DeadLettersDialect deadLetters) {
      this.deadLetters = deadLetters;
      return this;
    }

    public Builder retention(RetentionDialect retention) {
      this.retention = retention;
      return this;
    }

    public Builder status(StatusDialect status) {
      this.status = status;
      return this;
    }

    public Builder requestKeys(RequestKeysDialect requestKeys) {
      this.requestKeys = requestKeys;
      return this;
    }

    public JdbcDialect build() {
      return new JdbcDialect(this);
    }
  }

  @Override
  public SqlFlavour flavour() {
    return flavour;
  }

  @Override
  public String name() {
    return flavour.name();
  }

  @Override
  public List<String> schemaResources() {
    return flavour.schemaResources();
  }

  @Override
  public StoreDialect store() {
    return store;
  }

  @Override
  public QueueDialect queue() {
    return queue;
  }

  @Override
  public OperationsDialect operations() {
    return operations;
  }

  @Override
  public AttemptsDialect attempts() {
    return attempts;
  }

  @Override
  public DeadLettersDialect deadLetters() {
    return deadLetters;
  }

  @Override
  public RetentionDialect retention() {
    return retention;
  }

  @Override
  public StatusDialect status() {
    return status;
  }

  @Override
  public RequestKeysDialect requestKeys() {
    return requestKeys;
  }

  @Override
  public boolean isTransient(SQLException e) {
    return flavour.isTransient(e);
  }

  @Override
  public boolean isMissingTable(SQLException e) {
    return flavour.isMissingTable(e);
  }
}
