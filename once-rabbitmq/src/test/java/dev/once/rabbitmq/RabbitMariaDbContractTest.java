package dev.once.rabbitmq;

import dev.once.test.TestDatabase;

/** RabbitMQ with its outbox and inbox on MariaDB passes the transport contract. */
class RabbitMariaDbContractTest extends RabbitContractTest {
  @Override
  TestDatabase newDatabase() {
    return TestDatabase.mariadb();
  }
}
