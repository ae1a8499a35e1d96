package dev.once.bench.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberAssignment;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * The clock of a Kafka run starts once its group is stable, of all its members, with every
 * partition assigned; and a ceiling C slower than Once is reported void.
 */
class KafkaGroupsTest {
  private static final String TOPIC = "once-bench.c.bench-c-in.run";

  @Test
  void aGroupIsSettledWhenStableWithAllItsMembersHoldingEveryPartition() {
    assertThat(KafkaGroups.settled(List.of(group(GroupState.STABLE, 4, 6, TOPIC)), TOPIC, 6, 4))
        .isTrue();
  }

  @Test
  void theFirstMemberHoldingEveryPartitionBeforeTheOthersJoinedIsNotSettled() {
    // cooperative-sticky: the first consumer in gets all six, the next joins rebalance them
    assertThat(KafkaGroups.settled(List.of(group(GroupState.STABLE, 1, 6, TOPIC)), TOPIC, 6, 4))
        .isFalse();
  }

  @Test
  void aRebalancingGroupOrOneMissingAPartitionOrReadingAnotherTopicIsNotSettled() {
    assertThat(
            KafkaGroups.settled(
                List.of(group(GroupState.PREPARING_REBALANCE, 4, 6, TOPIC)), TOPIC, 6, 4))
        .isFalse();
    assertThat(
            KafkaGroups.settled(
                List.of(group(GroupState.COMPLETING_REBALANCE, 4, 6, TOPIC)), TOPIC, 6, 4))
        .isFalse();
    assertThat(KafkaGroups.settled(List.of(group(GroupState.STABLE, 4, 5, TOPIC)), TOPIC, 6, 4))
        .isFalse();
    assertThat(KafkaGroups.settled(List.of(group(GroupState.STABLE, 4, 6, "other")), TOPIC, 6, 4))
        .isFalse();
    assertThat(KafkaGroups.settled(List.of(), TOPIC, 6, 4)).isFalse();
  }

  @Test
  void ceilingCSlowerThanOnceIsVoid() {
    assertThat(E2eBench.ceilingVoid(2367, 1733)).isTrue(); // round 13's Kafka window
    assertThat(E2eBench.ceilingVoid(1621, 1917)).isFalse();
  }

  /** A group of {@code members} sharing partitions [0, {@code held}) of {@code topic}. */
  private static ConsumerGroupDescription group(
      GroupState state, int members, int held, String topic) {
    List<MemberDescription> m = new ArrayList<>();
    for (int i = 0; i < members; i++) {
      int member = i;
      Set<TopicPartition> mine =
          IntStream.range(0, held)
              .filter(p -> p % members == member)
              .mapToObj(p -> new TopicPartition(topic, p))
              .collect(Collectors.toSet());
      m.add(
          new MemberDescription(
              "m" + i, Optional.empty(), "c" + i, "/127.0.0.1", new MemberAssignment(mine)));
    }
    return new ConsumerGroupDescription(
        "g",
        false,
        m,
        "cooperative-sticky",
        GroupType.CLASSIC,
        state,
        null,
        Set.of(),
        Optional.empty(),
        Optional.empty());
  }
}
