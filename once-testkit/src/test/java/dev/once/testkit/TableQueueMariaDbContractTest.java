package dev.once.testkit;

import dev.once.test.TestDatabase;

/** The table queue on MariaDB passes the transport contract. */
class TableQueueMariaDbContractTest extends TableQueueContractTest {
  @Override
  TestDatabase newDatabase() {
    return TestDatabase.mariadb();
  }
}
