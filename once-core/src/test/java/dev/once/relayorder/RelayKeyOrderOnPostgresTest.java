package dev.once.relayorder;

import dev.once.internal.postgres.PostgresStore;
import dev.once.jdbc.RelayClaim;
import dev.once.jdbc.StoreDialect;
import dev.once.jdbc.TransactionWaits;
import dev.once.test.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Set;

class RelayKeyOrderOnPostgresTest extends RelayKeyOrderTest {
  @Override
  TestDatabase database() {
    return TestDatabase.embedded();
  }

  @Override
  StoreDialect storeWithoutHold() {
    return new PostgresStore() {
      @Override
      public RelayClaim claimRelayBatch(
          Connection c,
          TransactionWaits waits,
          Instant now,
          int limit,
          int relays,
          Set<String> keyOrdered)
          throws SQLException {
        return super.claimRelayBatch(c, waits, now, limit, relays, Set.of());
      }
    };
  }
}
