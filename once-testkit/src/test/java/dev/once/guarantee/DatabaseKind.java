package dev.once.guarantee;

import dev.once.test.TestDatabase;
import java.util.function.Supplier;

/** The two real PostgreSQL servers every guarantee test runs on. */
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
  }
}
