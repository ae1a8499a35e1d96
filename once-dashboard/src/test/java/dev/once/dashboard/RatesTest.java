package dev.once.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.WorkloadStatus;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RatesTest {
  private static final WorkloadStatus EMPTY =
      new WorkloadStatus(Instant.EPOCH, List.of(), List.of(), List.of(), List.of(), List.of());

  private static Sampler.Sample sample(double seconds, double completion, Double duplicate) {
    return new Sampler.Sample(
        Instant.EPOCH,
        seconds,
        Map.of("c", new Sampler.Point(0, 0, 0, 0, completion, completion, 0, duplicate, 0)),
        EMPTY);
  }

  @Test
  void ratesAreWeightedByTheSecondsEachSampleCovers() {
    Views.Rates r = Api.rates(List.of(sample(1, 10, 0.0), sample(3, 2, 4.0)), "c");
    assertThat(r.completion()).isEqualTo((10 * 1 + 2 * 3) / 4.0);
    assertThat(r.duplicate()).isEqualTo(3.0);
  }

  @Test
  void theDuplicateRateComesFromTheSamplesThatKnowItAndIsUnknownWhenNoneDoes() {
    assertThat(Api.rates(List.of(sample(2, 1, null), sample(2, 1, 6.0)), "c").duplicate())
        .as("the first samples, before the listener heard anything, do not count")
        .isEqualTo(6.0);
    assertThat(Api.rates(List.of(sample(2, 1, null)), "c").duplicate()).isNull();
    assertThat(Api.rates(List.of(), "c").completion()).isZero();
  }
}
