package dev.once;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class DeadLetterStatusTest {

  @Test
  void everyStatusReadsBackFromItsStoredForm() {
    for (DeadLetterStatus s : DeadLetterStatus.values()) {
      assertThat(DeadLetterStatus.of(s.value())).isSameAs(s);
      assertThat(s.toString()).isEqualTo(s.value());
    }
    assertThat(DeadLetterStatus.DEAD.value()).isEqualTo("dead");
  }

  @Test
  void aStoredValueThatIsNoStatusFailsNamingIt() {
    assertThatThrownBy(() -> DeadLetterStatus.of("DEAD"))
        .isInstanceOf(OnceException.class)
        .hasMessageContaining("once_dead_letter.status 'DEAD'")
        .hasMessageContaining("dead, replayed, discarded");
    assertThatThrownBy(() -> DeadLetterStatus.of(null)).hasMessageContaining("'null'");
  }
}
