package dev.once.ordered;

import dev.once.internal.mariadb.MariaDbFlavour;
import dev.once.jdbc.Dialect;
import dev.once.jdbc.JdbcDialect;
import dev.once.jdbc.JdbcQueue;
import dev.once.jdbc.QueueClaim;
import dev.once.spi.Delivery;
import dev.once.test.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * {@link OrderedConsumerTest} on MariaDB: the standard ordered claim (lock the visible rows, keep
 * those that head their key in one read, take them) under the same checker, workers, retries,
 * crashes, parks and releases; its broken twin claims as an unordered consumer does.
 */
class OrderedConsumerOnMariaDbTest extends OrderedConsumerTest {
  @Override
  TestDatabase database() {
    return TestDatabase.mariadb();
  }

  @Override
  Dialect withoutHeadOfKey() {
    MariaDbFlavour flavour = new MariaDbFlavour();
    return JdbcDialect.builder(flavour)
        .queue(
            new JdbcQueue(flavour) {
              @Override
              public List<Delivery> claimInKeyOrder(Connection c, QueueClaim claim)
                  throws SQLException {
                return claim(c, claim);
              }
            })
        .build();
  }
}
