package dev.once.workload;

import dev.once.test.TestDatabase;

/** Retention on MariaDB (its sequence engine makes the old rows). */
class RetentionOnMariaDbTest extends RetentionTest {
  @Override
  TestDatabase database() {
    return TestDatabase.mariadb();
  }

  @Override
  void insertOldRows(TestDatabase db) {
    db.execute(
        "INSERT INTO once_inbox (consumer_id, event_id, processed_at)"
            + " SELECT 'warehouse', concat('old:', seq), UTC_TIMESTAMP(6) - INTERVAL 3 HOUR"
            + " FROM seq_1_to_2500");
    db.execute(
        "INSERT INTO once_outbox (event_id, destination, event_type, payload, headers,"
            + " key_partition, created_at, sent_at) SELECT concat('old:', seq), 'orders',"
            + " 'OrderPaid', '', '', 0, UTC_TIMESTAMP(6) - INTERVAL 3 HOUR,"
            + " UTC_TIMESTAMP(6) - INTERVAL 3 HOUR FROM seq_1_to_2500");
  }
}
