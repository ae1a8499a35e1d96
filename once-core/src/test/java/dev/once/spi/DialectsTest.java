package dev.once.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.once.ConfigurationException;
import dev.once.jdbc.Dialects;
import dev.once.test.TestDatabase;
import org.junit.jupiter.api.Test;

class DialectsTest {

  @Test
  void aPostgresqlDataSourceGetsThePostgresqlDialect() {
    try (TestDatabase db = TestDatabase.embedded()) {
      assertThat(Dialects.forDataSource(db.dataSource()).name()).isEqualTo("postgresql");
    }
  }

  @Test
  void anUnsupportedDatabaseIsAClearErrorNamingTheProduct() {
    assertThatThrownBy(() -> Dialects.forProduct("Oracle"))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageContaining("dataSource")
        .hasMessageContaining("'Oracle'");
  }

  @Test
  void theShippedDialectsAreFoundByServiceLoaderByNameAndByProduct() {
    assertThat(Dialects.named("postgresql").name()).isEqualTo("postgresql");
    assertThat(Dialects.named("mariadb").name()).isEqualTo("mariadb");
    assertThat(Dialects.forProduct("MySQL").name()).isEqualTo("mariadb");
    assertThat(Dialects.forProduct("MariaDB").flavour().name()).isEqualTo("mariadb");
  }

  @Test
  void anUnknownDialectNameIsAClearErrorListingTheKnownOnes() {
    assertThatThrownBy(() -> Dialects.named("oracle"))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageContaining("'oracle'")
        .hasMessageContaining("postgresql")
        .hasMessageContaining("mariadb");
  }
}
