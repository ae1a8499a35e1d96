package dev.once.internal.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.once.Event;
import dev.once.EventId;
import dev.once.spi.Delivery;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A group's members are of one list class whatever their number. The consumer's loops over them
 * (the markers, each delivery's run) were compiled by the JIT for the class it had seen; {@code
 * List.copyOf} gave a group of one or two another class than a larger one, and each such batch then
 * hit the compiled transaction's class check until the JIT threw it away and compiled it again
 * ({@code docs/PERFORMANCE.md}, "One list class for a group's members").
 */
class GroupListClassTest {
  @Test
  void freshGroupsOfOneTwoAndManyMembersShareOneListClass() {
    Set<Class<?>> classes = new HashSet<>();
    for (int size : new int[] {1, 2, 3, 32}) {
      List<Group> groups = Isolation.group(deliveries(size), d -> -1, 32);
      assertThat(groups).hasSize(1);
      assertThat(groups.get(0).members()).hasSize(size);
      classes.add(groups.get(0).members().getClass());
    }
    assertThat(classes).hasSize(1);
  }

  @Test
  void suspectGroupsOfOneAndOfSeveralShareTheFreshGroupsListClass() {
    List<Delivery> held = deliveries(6);
    // one suspect at a high level runs alone; the five fresh ones run together
    List<Group> groups = Isolation.group(held, d -> d == held.get(0) ? 30 : -1, 32);
    assertThat(groups).extracting(g -> g.members().size()).containsExactlyInAnyOrder(1, 5);
    Set<Class<?>> classes = new HashSet<>();
    groups.forEach(g -> classes.add(g.members().getClass()));
    classes.add(Isolation.group(deliveries(3), d -> -1, 32).get(0).members().getClass());
    assertThat(classes).hasSize(1);
  }

  @Test
  void aFreshPollAndAPollWithSuspectsGiveOneListClassOfGroups() {
    List<Delivery> held = deliveries(4);
    List<Group> fresh = Isolation.group(held, d -> -1, 32);
    List<Group> mixed = Isolation.group(held, d -> d == held.get(0) ? 30 : -1, 32);
    assertThat(mixed).hasSizeGreaterThan(1);
    assertThat(fresh.getClass()).isEqualTo(mixed.getClass());
  }

  @Test
  void membersStayUnmodifiableAndApartFromTheListTheyCameFrom() {
    List<Delivery> held = new ArrayList<>(deliveries(2));
    Group g = Isolation.group(held, d -> -1, 32).get(0);
    held.clear();
    assertThat(g.members()).hasSize(2);
    assertThatThrownBy(() -> g.members().add(delivery(9)))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  private static List<Delivery> deliveries(int n) {
    List<Delivery> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(delivery(i));
    }
    return out;
  }

  private static Delivery delivery(int i) {
    return new Delivery(
        Event.of(EventId.of("e", i), "orders", "k-" + i, "t", "{}"), 1, false, (long) i);
  }
}
