package dev.once.app;

import dev.once.Schema;
import dev.once.SchemaStatus;
import dev.once.SchemaStatus.Applied;

/** What {@code once schema status} prints: applied and expected versions, then the history. */
final class SchemaStatusText {
  private SchemaStatusText() {}

  static String of(SchemaStatus s, String database) {
    StringBuilder out = new StringBuilder();
    out.append("schema    ").append(s.schema()).append(" (").append(s.dialect()).append(") of ");
    out.append(database).append('\n');
    out.append("applied   ").append(s.appliedVersion() == 0 ? "none" : s.appliedVersion());
    out.append('\n');
    out.append("expected  ").append(s.expected()).append('\n');
    out.append("state     ").append(state(s)).append('\n');
    if (!s.applied().isEmpty()) {
      out.append(String.format("%nhistory (%s)%n", Schema.HISTORY_TABLE));
      out.append(
          String.format(
              "  %-4s %-8s %-9s %-40s %-20s %s%n",
              "rank", "version", "type", "description", "installed on", "by"));
      for (Applied a : s.applied()) {
        out.append(
            String.format(
                "  %-4d %-8s %-9s %-40s %-20s %s%n",
                a.rank(),
                a.version() == 0 ? "-" : "V" + a.version(),
                a.success() ? a.type() : a.type() + " FAILED",
                a.description(),
                a.installedOn().toString().replace('T', ' ').replaceAll("\\.\\d+Z$|Z$", ""),
                a.installedBy()));
      }
    }
    return out.toString();
  }

  private static String state(SchemaStatus s) {
    if (!s.failed().isEmpty()) {
      return "a migration failed half-way: repair it (see 'once schema apply')";
    }
    if (s.newerThanCode()) {
      return "NEWER than this Once: a newer Once migrated it; this one refuses to start on it";
    }
    if (s.upToDate()) {
      return "up to date";
    }
    if (!s.recorded()) {
      return "no history: run 'once schema apply' (it records a schema an earlier Once made)";
    }
    return (s.expected() - s.appliedVersion()) + " migrations pending: run 'once schema apply'";
  }
}
