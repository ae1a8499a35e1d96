package dev.once.jdbc;

import java.util.List;

/**
 * A list bound as one condition ({@link SqlFlavour#in}): its values and their SQL element type
 * ({@code bigint}, {@code integer}, {@code text}), which a database that binds arrays needs.
 *
 * @param sqlType the element type, e.g. {@code bigint}
 * @param values the values, none null
 */
public record SqlList(String sqlType, List<?> values) {
  public SqlList {
    values = List.copyOf(values);
  }

  public static SqlList of(String sqlType, List<?> values) {
    return new SqlList(sqlType, values);
  }

  public int size() {
    return values.size();
  }
}
