package dev.once.app.ops;

import dev.once.DeadLetter;
import dev.once.DeadLetterFilter;
import dev.once.app.common.UserError;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The dead-letter ids given as positional arguments, as {@code once dead-letters list} prints them:
 * {@code 12}, a range {@code 3-7}, or several ({@code 3 5 9-11}, or {@code 3,5}).
 */
final class DeadLetterIds {
  /** More than this many ids at once is a typo (a range like {@code 1-1000000}). */
  static final int MAX = 100_000;

  private DeadLetterIds() {}

  /** The ids named by {@code args}, or null when none were given. */
  static Set<Long> parse(List<String> args) {
    if (args == null || args.isEmpty()) {
      return null;
    }
    TreeSet<Long> ids = new TreeSet<>();
    for (String arg : args) {
      for (String part : arg.split(",")) {
        add(ids, arg, part.strip());
      }
    }
    return ids;
  }

  private static void add(TreeSet<Long> ids, String arg, String part) {
    int dash = part.indexOf('-', 1);
    long first = number(arg, dash < 0 ? part : part.substring(0, dash));
    long last = dash < 0 ? first : number(arg, part.substring(dash + 1));
    if (last < first) {
      throw new UserError("ID '" + arg + "' is a range whose end is before its start");
    }
    if (last - first >= MAX || ids.size() + (last - first) >= MAX) {
      throw new UserError("ID '" + arg + "' names more than " + MAX + " dead letters");
    }
    for (long id = first; id <= last; id++) {
      ids.add(id);
    }
  }

  private static long number(String arg, String text) {
    try {
      long id = Long.parseLong(text.strip());
      if (id > 0) {
        return id;
      }
    } catch (NumberFormatException notANumber) {
      // the message below says what is expected
    }
    throw new UserError(
        "ID must be a dead-letter id as 'once dead-letters list' prints it (12), a range (3-7)"
            + " or several (3 5 9-11), was '"
            + arg
            + "'");
  }

  /** The ids the filter asked for that are not among {@code found}, in order. */
  static List<Long> missing(DeadLetterFilter f, List<DeadLetter> found) {
    if (f.ids() == null) {
      return List.of();
    }
    TreeSet<Long> missing = new TreeSet<>(f.ids());
    found.forEach(d -> missing.remove(d.id()));
    return List.copyOf(missing);
  }

  /** Said after a missing id when filters may be why it is missing. */
  static String withFilters(DeadLetterFilter f) {
    boolean filtered =
        f.consumerId() != null
            || f.eventId() != null
            || f.type() != null
            || f.fingerprint() != null
            || f.from() != null
            || f.to() != null;
    return filtered ? " with these filters" : "";
  }

  /** {@code [3, 4, 5, 9]} as {@code 3-5, 9}. */
  static String ranges(List<Long> ids) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < ids.size(); i++) {
      int j = i;
      while (j + 1 < ids.size() && ids.get(j + 1) == ids.get(j) + 1) {
        j++;
      }
      out.append(out.length() == 0 ? "" : ", ").append(ids.get(i));
      if (j > i) {
        out.append('-').append(ids.get(j));
      }
      i = j;
    }
    return out.toString();
  }
}
