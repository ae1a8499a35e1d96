package dev.once.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Runs statements written once in standard SQL on any database, through its {@link SqlFlavour}: an
 * {@link Instant} parameter is bound as the flavour binds instants, an {@link SqlList} as the
 * flavour binds lists (write its condition with {@link #in}), null as SQL NULL, a {@code String},
 * {@code Long}, {@code Integer} or {@code byte[]} with its typed setter (what {@code setObject}
 * does with one, without the driver's type switch: pgjdbc's is the largest method a producer
 * transaction reached in the driver), anything else with {@code setObject}. Every method runs on
 * the connection it is given and never commits.
 *
 * <pre>{@code
 * Sql sql = new Sql(Dialects.forDataSource(ds).flavour());
 * SqlList ids = SqlList.of("bigint", List.of(1L, 2L));
 * sql.update(c, "UPDATE my_table SET done_at = ? WHERE " + sql.in("id", ids), Instant.now(), ids);
 * boolean inserted = sql.insertUnlessDuplicate(c, "INSERT INTO my_keys (k) VALUES (?)", "k", key);
 * }</pre>
 */
public final class Sql {
  private final SqlFlavour flavour;

  public Sql(SqlFlavour flavour) {
    this.flavour = flavour;
  }

  public SqlFlavour flavour() {
    return flavour;
  }

  /** The flavour's condition that {@code column} is one of the list's values. */
  public String in(String column, SqlList list) {
    return flavour.in(column, list);
  }

  /**
   * The flavour's {@link SqlFlavour#headerColumns} as assignments, {@code column = ?, …}, for an
   * UPDATE that binds an {@link SqlHeaders}.
   */
  public String headerAssignments() {
    return String.join(
        ", ",
        java.util.Arrays.stream(flavour.headerColumns().split(","))
            .map(column -> column.strip() + " = ?")
            .toList());
  }

  /** Binds the parameters in order (see the class comment). */
  public void bind(PreparedStatement ps, Object... params) throws SQLException {
    int index = 1;
    for (Object p : params) {
      if (p instanceof String s) {
        ps.setString(index++, s);
      } else if (p instanceof Long l) {
        ps.setLong(index++, l);
      } else if (p instanceof Integer i) {
        ps.setInt(index++, i);
      } else if (p instanceof byte[] bytes) {
        ps.setBytes(index++, bytes);
      } else if (p instanceof Instant instant) {
        flavour.bindInstant(ps, index++, instant);
      } else if (p instanceof SqlList list) {
        index = flavour.bindList(ps, index, list);
      } else if (p instanceof SqlHeaders headers) {
        index = flavour.bindHeaders(ps, index, headers.values());
      } else if (p instanceof List<?> list) {
        throw new IllegalArgumentException("bind a list as an SqlList: " + list);
      } else if (p == null) {
        ps.setNull(index++, Types.NULL);
      } else {
        ps.setObject(index++, p);
      }
    }
  }

  /** Runs an INSERT, UPDATE or DELETE; returns how many rows it changed. */
  public int update(Connection c, String sql, Object... params) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      bind(ps, params);
      return ps.executeUpdate();
    }
  }

  /** Runs a statement whose result (if any) is not needed. */
  public void execute(Connection c, String sql, Object... params) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      bind(ps, params);
      ps.execute();
    }
  }

  /**
   * Runs {@code insert} (an {@code INSERT … VALUES (…)} without a conflict clause) followed by the
   * flavour's {@link SqlFlavour#ignoreDuplicates} for {@code conflictColumns}; false if a row with
   * those values existed (nothing written, the transaction goes on). Every other error is thrown.
   */
  public boolean insertUnlessDuplicate(
      Connection c, String insert, String conflictColumns, Object... params) throws SQLException {
    return insertUnlessDuplicate(c, unlessDuplicate(insert, conflictColumns), params);
  }

  /**
   * {@code insert} (an {@code INSERT … VALUES (…)} without a conflict clause) with the flavour's
   * {@link SqlFlavour#ignoreDuplicates} for {@code conflictColumns}, composed once for an INSERT
   * that runs often: run it with {@link #insertUnlessDuplicate(Connection, UnlessDuplicate,
   * Object...)}.
   */
  public UnlessDuplicate unlessDuplicate(String insert, String conflictColumns) {
    String clause = flavour.ignoreDuplicates(conflictColumns);
    return clause.isEmpty()
        ? new UnlessDuplicate(insert, true)
        : new UnlessDuplicate(insert.stripTrailing() + "\n" + clause, false);
  }

  /**
   * An INSERT that reports a duplicate as "not inserted": its statement, and whether a duplicate
   * shows as a duplicate-key error (the flavour has no clause that ignores it).
   */
  public record UnlessDuplicate(String statement, boolean duplicateIsError) {}

  /** Runs {@code insert}; false if a row with its conflict columns' values existed. */
  public boolean insertUnlessDuplicate(Connection c, UnlessDuplicate insert, Object... params)
      throws SQLException {
    try {
      return update(c, insert.statement(), params) > 0;
    } catch (SQLException e) {
      if (insert.duplicateIsError() && flavour.isDuplicateKey(e)) {
        return false;
      }
      throw e;
    }
  }

  /**
   * {@link #insertUnlessDuplicate(Connection, UnlessDuplicate, Object...)} by {@code ps}, prepared
   * from {@code insert}'s statement and held by the caller.
   */
  public boolean insertUnlessDuplicate(
      PreparedStatement ps, UnlessDuplicate insert, Object... params) throws SQLException {
    try {
      bind(ps, params);
      return ps.executeUpdate() > 0;
    } catch (SQLException e) {
      if (insert.duplicateIsError() && flavour.isDuplicateKey(e)) {
        return false;
      }
      throw e;
    }
  }

  /** Maps one row. */
  @FunctionalInterface
  public interface Row<T> {
    T map(ResultSet rs) throws SQLException;
  }

  /** Every row, mapped. */
  public <T> List<T> list(Connection c, String sql, Row<T> row, Object... params)
      throws SQLException {
    List<T> out = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      bind(ps, params);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(row.map(rs));
        }
      }
    }
    return out;
  }

  /** The first row mapped, or null if there is none. */
  public <T> T first(Connection c, String sql, Row<T> row, Object... params) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      bind(ps, params);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? row.map(rs) : null;
      }
    }
  }

  /** The first column of every row, as ints. */
  public List<Integer> ints(Connection c, String sql, Object... params) throws SQLException {
    return list(c, sql, rs -> rs.getInt(1), params);
  }

  /** The first column of every row, as strings, added to {@code into}. */
  public <C extends Collection<String>> C strings(
      Connection c, String sql, C into, Object... params) throws SQLException {
    into.addAll(list(c, sql, rs -> rs.getString(1), params));
    return into;
  }

  /** The first column of the first row as a long (0 if there is none). */
  public long queryLong(Connection c, String sql, Object... params) throws SQLException {
    Long value = first(c, sql, rs -> rs.getLong(1), params);
    return value == null ? 0 : value;
  }

  /** The instant in {@code column}, or null. */
  public Instant instant(ResultSet rs, String column) throws SQLException {
    return flavour.readInstant(rs, column);
  }
}
