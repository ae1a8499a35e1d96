package dev.once.web;

import dev.once.test.TestDatabase;

class WebOnMariaDbTest extends WebContract {
  @Override
  TestDatabase database() {
    return TestDatabase.mariadb();
  }
}
