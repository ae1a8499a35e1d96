package dev.once.kafka;

import dev.once.test.TestDatabase;

/** {@link dev.once.testkit.RecoveryContract} on Kafka and the local MariaDB. */
class KafkaMariaDbRecoveryTest extends KafkaRecoveryTest {
  @Override
  TestDatabase newDatabase() {
    return TestDatabase.mariadb();
  }
}
