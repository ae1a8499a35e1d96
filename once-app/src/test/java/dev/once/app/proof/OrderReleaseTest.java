package dev.once.app.proof;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class OrderReleaseTest {

  @Test
  void eachPhaseReleasesOneShareAndTheLastShareWaitsForTheEnd() {
    OrderRelease r = new OrderRelease(900, 7); // 9 shares of 100
    assertThat(r.allowed()).isZero();
    r.startPhase(0);
    assertThat(r.allowed()).isEqualTo(100);
    r.startPhase(6);
    assertThat(r.allowed()).isEqualTo(700);
    r.all();
    assertThat(r.allowed()).isEqualTo(900);
  }

  @Test
  void aStarvedPhasePullsAtMostTheNextPhasesShare() {
    OrderRelease r = new OrderRelease(900, 7);
    r.startPhase(0);
    r.starved();
    assertThat(r.allowed()).isEqualTo(112); // an eighth of a share
    for (int i = 0; i < 20; i++) {
      r.starved();
    }
    assertThat(r.allowed()).isEqualTo(200);
    r.startPhase(1); // starts where the previous phase's pulls left it
    assertThat(r.allowed()).isEqualTo(200);
    r.starved();
    assertThat(r.allowed()).isEqualTo(212);
  }

  @Test
  void neverMoreThanTheEvents() {
    OrderRelease r = new OrderRelease(5, 7);
    for (int p = 0; p < 7; p++) {
      r.startPhase(p);
      r.starved();
      assertThat(r.allowed()).isLessThanOrEqualTo(5);
    }
    r.all();
    assertThat(r.allowed()).isEqualTo(5);
  }
}
