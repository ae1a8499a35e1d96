package dev.once.app.common;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The passwords this process was given (in a {@code --db} or {@code --amqp} URL, or in {@code
 * ONCE_DB} / {@code ONCE_AMQP_URI}) and the one scrubber every line the CLI prints goes through:
 * errors, their stack traces, and log lines (logback's {@code %msg} and {@code %ex} are {@link
 * ScrubbedMessage} and {@link ScrubbedThrowable})). Drivers echo a URL, or a piece of it, in their
 * own words ("u:pw@host", "Incorrect port value : pw@host"): scrubbing the known values catches
 * what a URL pattern cannot.
 */
public final class Secrets {
  /** Shorter passwords are only masked where they appear in a URL's shape. */
  static final int MIN_KNOWN = 3;

  private static final Pattern PASSWORD_PARAM = Pattern.compile("(?i)password=([^&;]*)");
  private static final Pattern PASSWORD_IN_TEXT =
      Pattern.compile("(?i)(password=)(?!\\*\\*\\*)[^&;\\s'\"]*");
  private static final Pattern USER_INFO =
      Pattern.compile("([A-Za-z][A-Za-z0-9+.-]*://[^:/@\\s'\"]*:)(?!\\*\\*\\*@)[^@\\s'\"]*@");
  private static final Set<String> KNOWN = ConcurrentHashMap.newKeySet();

  static {
    learn(System.getenv(Database.ENV));
    learn(System.getenv(TransportOptions.AMQP_ENV));
  }

  private Secrets() {}

  /** Remembers the passwords in {@code text} (a URL or any command-line argument), if any. */
  public static void learn(String text) {
    if (text == null) {
      return;
    }
    Matcher m = PASSWORD_PARAM.matcher(text);
    while (m.find()) {
      remember(m.group(1));
    }
    int scheme = text.indexOf("://");
    if (scheme >= 0) {
      String rest = text.substring(scheme + 3);
      int query = rest.indexOf('?');
      String authority = query < 0 ? rest : rest.substring(0, query);
      int at = authority.lastIndexOf('@');
      int colon = authority.indexOf(':');
      if (at > 0 && colon >= 0 && colon < at) {
        remember(authority.substring(colon + 1, at));
      }
    }
  }

  /** Every argument of a command line. */
  public static void learnAll(String... args) {
    for (String a : args) {
      learn(a);
    }
  }

  private static void remember(String password) {
    add(password);
    try {
      add(URLDecoder.decode(password, StandardCharsets.UTF_8));
    } catch (IllegalArgumentException e) {
      // a malformed escape: the raw text is what a driver quotes
    }
  }

  private static void add(String value) {
    if (value.length() >= MIN_KNOWN) {
      KNOWN.add(value);
    }
  }

  /** {@code text} with every known password and every URL's password replaced by {@code ***}. */
  public static String scrub(String text) {
    if (text == null || text.isEmpty()) {
      return text;
    }
    String out = text;
    List<String> known =
        KNOWN.stream().sorted(Comparator.comparingInt(String::length).reversed()).toList();
    for (String k : known) {
      out = out.replace(k, "***");
    }
    out = PASSWORD_IN_TEXT.matcher(out).replaceAll("$1***");
    return USER_INFO.matcher(out).replaceAll("$1***@");
  }
}
