package dev.once.jdbc;

import java.util.Map;

/**
 * A message's headers bound to the columns that store them ({@link SqlFlavour#headerColumns}), as
 * many parameters as the flavour's {@link SqlFlavour#headerParameters} writes: one {@code headers}
 * column in standard SQL, the headers and a packed trace context on PostgreSQL.
 *
 * @param values the headers, in order
 */
public record SqlHeaders(Map<String, String> values) {
  public static SqlHeaders of(Map<String, String> values) {
    return new SqlHeaders(values);
  }
}
