package dev.once.testkit;

import dev.once.jdbc.Dialect;
import dev.once.test.TestDatabase;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** PostgreSQL's dialect (embedded server) passes the dialect contract. */
class PostgresDialectContractTest extends DialectContract {
  private static TestDatabase db;

  @BeforeAll
  static void open() {
    db = TestDatabase.embedded();
  }

  @AfterAll
  static void close() {
    db.close();
  }

  @Override
  public DataSource dataSource() {
    return db.dataSource();
  }

  @Override
  public Dialect dialect() {
    return db.dialect();
  }
}
