package dev.once.rabbitmq;

import dev.once.test.TestDatabase;

/** {@link dev.once.testkit.RecoveryContract} on RabbitMQ and the local MariaDB. */
class RabbitMariaDbRecoveryTest extends RabbitRecoveryTest {
  @Override
  TestDatabase newDatabase() {
    return TestDatabase.mariadb();
  }
}
