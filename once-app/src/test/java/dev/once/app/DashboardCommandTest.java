package dev.once.app;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@code once dashboard} and {@code --dashboard}: bad settings are one clear line and exit 2. */
class DashboardCommandTest {

  @Test
  void aPortOutOfRangeIsRefusedNamingTheOptionAndValue() {
    DemoCommandTest.Run r = DemoCommandTest.run("dashboard", "--port", "70000");
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err()).contains("--port must be between 0 and 65535, was 70000");
  }

  @Test
  void aShortTokenIsRefusedWithoutPrintingIt() {
    DemoCommandTest.Run r = DemoCommandTest.run("dashboard", "--token", "tiny-secret");
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err())
        .contains("--token must have at least 16 characters, had 11")
        .doesNotContain("tiny-secret");
  }

  @Test
  void theDemosDashboardPortIsCheckedBeforeTheRunStarts() {
    DemoCommandTest.Run r =
        DemoCommandTest.run("demo", "--dashboard", "--dashboard-port", "-1", "--db", "jdbc:x");
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err()).contains("--dashboard-port must be between 0 and 65535, was -1");
  }
}
