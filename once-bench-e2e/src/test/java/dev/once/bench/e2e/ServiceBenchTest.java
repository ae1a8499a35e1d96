package dev.once.bench.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** How the bench starts the service's JVM and reads what it prints. */
class ServiceBenchTest {
  @Test
  void childOptionsAreSplitAtWhiteSpaceAndNoneWhenUnset() {
    assertThat(ServiceBench.childOptions(null)).isEmpty();
    assertThat(ServiceBench.childOptions("  ")).isEmpty();
    assertThat(ServiceBench.childOptions(" -XX:+PrintCompilation\t -Xlog:jit*=debug "))
        .containsExactly("-XX:+PrintCompilation", "-Xlog:jit*=debug");
  }

  @Test
  void theChildsJsonIsItsLastLineWhateverTheJvmPrintedBefore() {
    String stdout = "Started recording 1.\n\nUse jcmd 42 JFR.dump ...\n{\"service_eps\":1}\n";
    assertThat(ServiceBench.lastLine(stdout)).isEqualTo("{\"service_eps\":1}");
    assertThat(ServiceBench.lastLine("{\"a\":1}")).isEqualTo("{\"a\":1}");
    assertThat(ServiceBench.lastLine("")).isEmpty();
  }
}
