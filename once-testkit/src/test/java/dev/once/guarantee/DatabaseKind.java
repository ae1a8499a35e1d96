package dev.once.guarantee;

import dev.once.test.TestDatabase;
import java.util.function.Supplier;

/**
 * The real databases every guarantee test runs on: PostgreSQL embedded and on the local server, and
 * the local MariaDB (each skipped with one line when absent, failing in CI).
 */
enum DatabaseKind implements Supplier<TestDatabase> {
  EMBEDDED {
    @Override
    public TestDatabase get() {
      return TestDatabase.embedded();
    }
  },
  LOCAL_SERVER {
    @Override
    public TestDatabase get() {
      return TestDatabase.local();
    }
  },
  MARIADB {
    @Override
    public TestDatabase get() {
      return TestDatabase.mariadb();
    }
  }
}
