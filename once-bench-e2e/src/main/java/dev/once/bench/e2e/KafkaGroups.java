package dev.once.bench.e2e;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;

/**
 * Before a full-speed run's clock starts on Kafka: waits until the consumer group reading the run's
 * topic is stable with all its members in and every partition assigned. A group's join is not the
 * pipeline's throughput; a clock that runs while four hand-written consumers join one by one (each
 * join a rebalance) measured the joins and made ceiling C weaker than Once, which joins with one
 * consumer per process. Once and ceiling C both wait for it.
 */
final class KafkaGroups {
  private KafkaGroups() {}

  /**
   * Waits until a group of at least {@code members} members (a stale one may linger) holds all
   * {@code partitions} partitions of {@code topic}, stable; throws after {@code timeout}.
   */
  static void awaitSettled(
      String bootstrap, String topic, int partitions, int members, Duration timeout)
      throws Exception {
    try (Admin admin =
        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
      long deadline = System.nanoTime() + timeout.toNanos();
      while (!settled(describe(admin), topic, partitions, members)) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "no stable group of "
                  + members
                  + " member(s) holds the "
                  + partitions
                  + " partitions of "
                  + topic
                  + " after "
                  + timeout);
        }
        Thread.sleep(20);
      }
    }
  }

  private static List<ConsumerGroupDescription> describe(Admin admin) throws Exception {
    List<String> ids =
        admin.listGroups().all().get(30, TimeUnit.SECONDS).stream()
            .map(GroupListing::groupId)
            .toList();
    if (ids.isEmpty()) {
      return List.of();
    }
    return List.copyOf(admin.describeConsumerGroups(ids).all().get(30, TimeUnit.SECONDS).values());
  }

  /** Whether one of {@code groups} is stable, of {@code members}, and holds all of the topic. */
  static boolean settled(
      List<ConsumerGroupDescription> groups, String topic, int partitions, int members) {
    for (ConsumerGroupDescription g : groups) {
      Set<Integer> held =
          g.members().stream()
              .map(MemberDescription::assignment)
              .flatMap(a -> a.topicPartitions().stream())
              .filter(tp -> tp.topic().equals(topic))
              .map(TopicPartition::partition)
              .collect(Collectors.toSet());
      if (g.groupState() == GroupState.STABLE
          && g.members().size() >= members
          && held.size() == partitions) {
        return true;
      }
    }
    return false;
  }
}
