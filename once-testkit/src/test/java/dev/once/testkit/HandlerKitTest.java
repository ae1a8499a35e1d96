package dev.once.testkit;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.once.Event;
import dev.once.EventId;
import dev.once.Handler;
import dev.once.test.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The kit passes a correct handler and catches each kind of broken one. */
class HandlerKitTest {
  private static final String EFFECTS = "SELECT count(*) FROM dispatch_jobs WHERE event_id = ?";

  private TestDatabase db;

  @BeforeEach
  void open() {
    db = TestDatabase.embedded();
    db.execute("CREATE TABLE dispatch_jobs (order_id text NOT NULL, event_id text NOT NULL)");
  }

  @AfterEach
  void close() {
    db.close();
  }

  private HandlerKit kit(Handler handler) {
    return HandlerKit.of(db.dataSource(), "warehouse", handler)
        .events(n -> Event.of(EventId.of("order-paid", n), "orders", "o" + n, "OrderPaid", "{}"))
        .redeliveryWait(Duration.ofSeconds(3));
  }

  /** The correct handler: its effect goes through the transaction that holds the marker. */
  private static final Handler CORRECT =
      (tx, e) ->
          tx.update(
              "INSERT INTO dispatch_jobs (order_id, event_id) VALUES (?, ?)",
              e.key(),
              e.id().value());

  @Test
  void aHandlerThatWritesThroughItsTransactionPassesEveryWindowAndConcurrentDuplicates() {
    assertThatCode(() -> kit(CORRECT).effects(EFFECTS).verify()).doesNotThrowAnyException();
  }

  @Test
  void theKitCatchesAHandlerThatWritesItsEffectOnItsOwnConnection() {
    Handler ownConnection =
        (tx, e) -> {
          try (Connection c = db.dataSource().getConnection();
              PreparedStatement ps =
                  c.prepareStatement(
                      "INSERT INTO dispatch_jobs (order_id, event_id) VALUES (?, ?)")) {
            ps.setString(1, e.key());
            ps.setString(2, e.id().value());
            ps.executeUpdate(); // auto-commit: survives the rollback of the marker
          }
        };
    assertThatThrownBy(() -> kit(ownConnection).effects(EFFECTS).verifyCrashWindows())
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("crash at consumer.after-effect-before-commit")
        .hasMessageContaining("has 2 effects and 1 markers");
  }

  @Test
  void theKitCatchesATransportThatAcknowledgesBeforeTheCommit() {
    HandlerKit kit =
        kit(CORRECT)
            .effects(EFFECTS)
            .transport(EarlyAckingTransport::new)
            .redeliveryWait(Duration.ofSeconds(1));
    assertThatThrownBy(kit::verifyCrashWindows)
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("crash at consumer.after-marker")
        .hasMessageContaining("crash at consumer.after-effect-before-commit")
        .hasMessageContaining("has 0 effects and 0 markers")
        .hasMessageContaining("lost");
  }

  @Test
  void theKitCatchesACheckThenInsertInbox() {
    HandlerKit kit = kit(CORRECT).effects(EFFECTS).dialect(CheckThenInsertInbox.in(db));
    assertThatThrownBy(kit::verifyConcurrentDuplicates)
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("8 concurrent deliveries of one event")
        // the broken inbox lets all eight look before any inserts: all of them act
        .hasMessageMatching(
            "(?s).*8 concurrent deliveries of one event: event \\S+ has 8 effects.*");
  }

  @Test
  void theKitCatchesAHandlerThatCallsAProviderWithAFreshKeyPerAttempt() {
    FakeProvider provider = new FakeProvider();
    Handler freshKey =
        (tx, e) -> {
          provider.charge(e.key(), UUID.randomUUID().toString());
          CORRECT.handle(tx, e);
        };
    HandlerKit kit = kit(freshKey).effects((c, id) -> provider.charges(orderOf(id)));
    assertThatThrownBy(kit::verifyCrashWindows)
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("crash at consumer.after-effect-before-commit")
        .hasMessageContaining("has 2 effects");
  }

  @Test
  void aHandlerThatKeysTheProviderCallWithTheEventIdPasses() {
    FakeProvider provider = new FakeProvider();
    Handler stableKey =
        (tx, e) -> {
          provider.charge(e.key(), "charge:" + e.id().value());
          CORRECT.handle(tx, e);
        };
    HandlerKit kit = kit(stableKey).effects((c, id) -> provider.charges(orderOf(id)));
    assertThatCode(kit::verify).doesNotThrowAnyException();
  }

  /** The events' keys are "o" + the number in "order-paid:<n>". */
  private static String orderOf(EventId id) {
    return "o" + id.value().substring("order-paid:".length());
  }
}
