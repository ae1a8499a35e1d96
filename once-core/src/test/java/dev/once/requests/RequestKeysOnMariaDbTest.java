package dev.once.requests;

import dev.once.test.TestDatabase;

class RequestKeysOnMariaDbTest extends RequestKeysContract {
  @Override
  TestDatabase database() {
    return TestDatabase.mariadb();
  }
}
