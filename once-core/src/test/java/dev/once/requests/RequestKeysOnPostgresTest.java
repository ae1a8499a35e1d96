package dev.once.requests;

import dev.once.test.TestDatabase;

class RequestKeysOnPostgresTest extends RequestKeysContract {
  @Override
  TestDatabase database() {
    return TestDatabase.embedded();
  }
}
