package dev.once.bench.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.stream.Stream;
import javax.sql.DataSource;

/**
 * What PostgreSQL spent between two readings: bytes of WAL, and — when the server runs on this
 * machine (its processes readable in {@code /proc}, Linux) — the CPU time of all its processes
 * (backends, WAL writer, checkpointer). The CPU figure is the server's, whoever uses it: it says
 * what a run cost only when the bench has the server to itself, as with the embedded one.
 */
final class PostgresCost {
  /** A reading: the WAL position; the server's CPU time in nanoseconds, -1 when not readable. */
  record Reading(String lsn, long cpuNanos) {}

  /** {@code /proc}'s clock ticks per second (USER_HZ, 100 on Linux). */
  private static final long TICK_NANOS = 10_000_000L;

  private PostgresCost() {}

  /** Now, or null when the database is not PostgreSQL. */
  static Reading read(DataSource dataSource) {
    if (BenchTables.isMariaDb(dataSource)) {
      return null;
    }
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT pg_current_wal_lsn()::text, pg_backend_pid()")) {
      rs.next();
      return new Reading(rs.getString(1), serverCpuNanos(rs.getInt(2)));
    } catch (SQLException e) {
      throw new IllegalStateException("bench SQL failed: " + e.getMessage(), e);
    }
  }

  /** Bytes of WAL written since {@code lsn}. */
  static long walSince(DataSource dataSource, String lsn) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), ?::pg_lsn)")) {
      ps.setString(1, lsn);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("bench SQL failed: " + e.getMessage(), e);
    }
  }

  /**
   * The CPU time of the postmaster that runs backend {@code backendPid} and of all its children, or
   * -1 when that backend is not a local PostgreSQL process.
   */
  private static long serverCpuNanos(int backendPid) {
    String[] backend = stat(Path.of("/proc", Integer.toString(backendPid), "stat"));
    if (backend == null || !backend[0].contains("postgres")) {
      return -1;
    }
    String postmaster = backend[2];
    long ticks = 0;
    try (Stream<Path> all = Files.list(Path.of("/proc"))) {
      for (Path p : (Iterable<Path>) all::iterator) {
        String[] stat = stat(p.resolve("stat"));
        if (stat != null
            && (stat[2].equals(postmaster) || p.getFileName().toString().equals(postmaster))) {
          ticks += Long.parseLong(stat[12]) + Long.parseLong(stat[13]); // utime, stime
        }
      }
    } catch (IOException | RuntimeException e) {
      return -1;
    }
    return ticks * TICK_NANOS;
  }

  /**
   * The fields of a {@code /proc/<pid>/stat} after its pid: [0] the command in parentheses, [1] the
   * state, [2] the parent's pid, …, [12] utime, [13] stime; null if it cannot be read.
   */
  private static String[] stat(Path path) {
    try {
      String line = Files.readString(path);
      int close = line.lastIndexOf(')');
      String command = line.substring(line.indexOf('(') + 1, close);
      String[] rest = line.substring(close + 2).split(" ");
      String[] fields = new String[rest.length + 1];
      fields[0] = command;
      System.arraycopy(rest, 0, fields, 1, rest.length);
      return fields;
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }
}
