package dev.once.relayorder;

import dev.once.internal.mariadb.MariaDbFlavour;
import dev.once.jdbc.JdbcStore;
import dev.once.jdbc.RelayClaim;
import dev.once.jdbc.StoreDialect;
import dev.once.jdbc.TransactionWaits;
import dev.once.test.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Set;

class RelayKeyOrderOnMariaDbTest extends RelayKeyOrderTest {
  @Override
  TestDatabase database() {
    return TestDatabase.mariadb();
  }

  @Override
  StoreDialect storeWithoutHold() {
    return new JdbcStore(new MariaDbFlavour()) {
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
