package dev.once.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * An {@link SqlList}'s values are of one list class whatever their number. A flavour binds them
 * with {@code values.toArray(...)}; {@code List.copyOf} gave one or two values another class than
 * more, and the compiled binding of an ack's ids hit a class check each time the other came, until
 * the JIT compiled it again ({@code docs/PERFORMANCE.md}, "One list class for a group's members").
 */
class SqlListClassTest {
  @Test
  void oneTwoAndManyValuesShareOneListClass() {
    Set<Class<?>> classes = new HashSet<>();
    for (List<Long> ids :
        List.of(List.of(1L), List.of(1L, 2L), List.of(1L, 2L, 3L), new ArrayList<>(List.of(4L)))) {
      SqlList list = SqlList.of("bigint", ids);
      assertThat(list.values()).isEqualTo(ids);
      classes.add(list.values().getClass());
    }
    assertThat(classes).hasSize(1);
  }

  @Test
  void valuesStayACopyUnmodifiableAndNoneNull() {
    List<String> given = new ArrayList<>(List.of("a", "b"));
    SqlList list = SqlList.of("text", given);
    given.clear();
    assertThat(list.values()).isEqualTo(List.of("a", "b"));
    assertThatThrownBy(() -> list.values().clear())
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> SqlList.of("text", Arrays.asList("a", null)))
        .isInstanceOf(NullPointerException.class);
    assertThat(SqlList.of("bigint", List.of(1L, 2L)))
        .isEqualTo(SqlList.of("bigint", List.of(1L, 2L)));
  }
}
