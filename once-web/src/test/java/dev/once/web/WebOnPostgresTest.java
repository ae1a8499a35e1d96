package dev.once.web;

import dev.once.test.TestDatabase;

class WebOnPostgresTest extends WebContract {
  @Override
  TestDatabase database() {
    return TestDatabase.embedded();
  }
}
