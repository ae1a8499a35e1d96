package dev.once.workload;

import dev.once.test.TestDatabase;

/** Retention on PostgreSQL (embedded). */
class RetentionOnPostgresTest extends RetentionTest {
  @Override
  TestDatabase database() {
    return TestDatabase.embedded();
  }

  @Override
  void insertOldRows(TestDatabase db) {
    db.execute(
        "INSERT INTO once_inbox (consumer_id, event_id, processed_at)"
            + " SELECT 'warehouse', 'old:' || g, now() - interval '3 hours'"
            + " FROM generate_series(1, 2500) g");
    db.execute(
        "INSERT INTO once_outbox (event_id, destination, event_type, payload, key_partition,"
            + " created_at, sent_at) SELECT 'old:' || g, 'orders', 'OrderPaid', '', 0,"
            + " now() - interval '3 hours', now() - interval '3 hours'"
            + " FROM generate_series(1, 2500) g");
  }
}
