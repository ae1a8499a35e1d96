package dev.once.testkit;

import dev.once.jdbc.Dialect;
import dev.once.test.TestDatabase;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** MariaDB's dialect (the local server) passes the dialect contract. */
class MariaDbDialectContractTest extends DialectContract {
  private static TestDatabase db;

  @BeforeAll
  static void open() {
    db = TestDatabase.mariadb();
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
