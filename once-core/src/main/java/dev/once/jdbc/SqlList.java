package dev.once.jdbc;

import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * A list bound as one condition ({@link SqlFlavour#in}): its values and their SQL element type
 * ({@code bigint}, {@code integer}, {@code text}), which a database that binds arrays needs.
 *
 * @param sqlType the element type, e.g. {@code bigint}
 * @param values the values, none null
 */
public record SqlList(String sqlType, List<?> values) {
  public SqlList {
    values = copy(values);
  }

  /**
   * An unmodifiable copy, none null, of one list class whatever its size: {@code List.copyOf} gave
   * one or two values another class than more, and the JIT's compiled binding of a list (an ack's
   * ids, a batch's markers) was thrown away when the other came ({@code docs/PERFORMANCE.md}, "One
   * list class for a group's members").
   */
  private static List<?> copy(List<?> values) {
    Object[] copy = values.toArray();
    for (Object v : copy) {
      Objects.requireNonNull(v, "a value of an SqlList");
    }
    return Collections.unmodifiableList(Arrays.asList(copy));
  }

  public static SqlList of(String sqlType, List<?> values) {
    return new SqlList(sqlType, values);
  }

  public int size() {
    return values.size();
  }
}
