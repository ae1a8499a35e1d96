package dev.once.internal.schema;

import dev.once.OnceException;
import dev.once.SchemaStatus;
import dev.once.SchemaStatus.Applied;
import dev.once.SchemaVersionException;
import dev.once.jdbc.Dialect;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32;

/**
 * The migration files a dialect ships ({@code V<version>__<description>.sql}), read and summed as
 * Flyway reads and sums them, and what they say about a recorded history: which are pending, and
 * whether the history is one this Once can use. {@link SchemaHistory} reads and writes the history.
 */
public final class SchemaFiles {
  private static final Pattern FILE = Pattern.compile("V(\\d+)__(.+)\\.sql");
  private static final Pattern CREATES_TABLE =
      Pattern.compile("(?is)^CREATE\\s+TABLE\\s+(?:IF\\s+NOT\\s+EXISTS\\s+)?(\\w+).*");
  private static final Pattern ADDS_COLUMN =
      Pattern.compile("(?is)^ALTER\\s+TABLE\\s+(\\w+)\\s+ADD\\s+(?:COLUMN\\s+)?(\\w+).*");

  private SchemaFiles() {}

  /** The classpath location of the dialect's migrations ({@code Schema.location}). */
  public static String location(Dialect dialect) {
    return "dev/once/schema/" + dialect.name();
  }

  /** Each migration's file name and text, in order ({@code Schema.migrations}). */
  public static Map<String, String> migrations(Dialect dialect) {
    Map<String, String> files = new LinkedHashMap<>();
    for (String name : dialect.schemaResources()) {
      String path = location(dialect) + "/" + name;
      try (InputStream in = SchemaFiles.class.getClassLoader().getResourceAsStream(path)) {
        if (in == null) {
          throw new OnceException("schema resource " + path + " is missing from the classpath");
        }
        files.put(name, new String(in.readAllBytes(), StandardCharsets.UTF_8));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return files;
  }

  /** One migration file of a dialect, as Flyway names and sums it. */
  record Migration(int version, String description, String script, String text, int checksum) {
    /** The first table it creates or column it adds: there when it was applied. */
    Probe probe() {
      for (String statement : statements(text)) {
        Matcher table = CREATES_TABLE.matcher(statement);
        if (table.matches()) {
          return new Probe(table.group(1).toLowerCase(), null);
        }
        Matcher column = ADDS_COLUMN.matcher(statement);
        if (column.matches()) {
          return new Probe(column.group(1).toLowerCase(), column.group(2).toLowerCase());
        }
      }
      throw new OnceException(script + " creates no table and adds no column");
    }

    String label() {
      return "V" + version + " (" + description + ")";
    }
  }

  record Probe(String table, String column) {}

  static List<Migration> of(Dialect dialect) {
    List<Migration> all = new ArrayList<>();
    for (Map.Entry<String, String> file : migrations(dialect).entrySet()) {
      Matcher m = FILE.matcher(file.getKey());
      if (!m.matches()) {
        throw new OnceException(
            "schema resource " + file.getKey() + " is not named V<version>__<description>.sql");
      }
      all.add(
          new Migration(
              Integer.parseInt(m.group(1)),
              m.group(2).replace('_', ' '),
              file.getKey(),
              file.getValue(),
              checksum(file.getValue())));
    }
    return all;
  }

  /** The highest version {@code dialect} ships. */
  public static int expected(Dialect dialect) {
    List<Migration> all = of(dialect);
    return all.isEmpty() ? 0 : all.get(all.size() - 1).version();
  }

  /**
   * Flyway's checksum of a script: CRC-32 over its lines' UTF-8 bytes without line breaks (so CRLF
   * and LF files sum alike), a byte-order mark dropped.
   */
  public static int checksum(String text) {
    CRC32 crc = new CRC32();
    try (BufferedReader lines = new BufferedReader(new StringReader(text))) {
      String line = lines.readLine();
      if (line != null && line.startsWith("\uFEFF")) {
        line = line.substring(1);
      }
      for (; line != null; line = lines.readLine()) {
        crc.update(line.getBytes(StandardCharsets.UTF_8));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return (int) crc.getValue();
  }

  /** A script's statements: comment lines dropped, split at a ';' that ends a line. */
  public static List<String> statements(String script) {
    StringBuilder sql = new StringBuilder();
    for (String line : script.split("\n")) {
      if (!line.strip().startsWith("--")) {
        sql.append(line).append('\n');
      }
    }
    return Arrays.stream(sql.toString().split(";[ \t]*\n"))
        .map(String::strip)
        .filter(statement -> !statement.isEmpty())
        .toList();
  }

  static List<Migration> pending(SchemaStatus status, List<Migration> migrations, int target) {
    int applied = status.appliedVersion();
    return migrations.stream().filter(m -> m.version() > applied && m.version() <= target).toList();
  }

  static String labels(List<Migration> migrations) {
    return String.join(", ", migrations.stream().map(Migration::label).toList());
  }

  /** A failed migration, a schema newer than this Once, or a script changed since it ran. */
  static void refuseUnusable(SchemaStatus status, List<Migration> migrations) {
    if (!status.failed().isEmpty()) {
      Applied failed = status.failed().get(0);
      throw new SchemaVersionException(
          SchemaVersionException.Reason.DAMAGED,
          status.schema(),
          status.appliedVersion(),
          status.expected(),
          "migration V"
              + failed.version()
              + " ("
              + failed.description()
              + ") of the Once schema in '"
              + status.schema()
              + "' failed at "
              + failed.installedOn()
              + " and may have left part of its changes (this database commits DDL statement by"
              + " statement): undo them by hand, delete its row (installed_rank "
              + failed.rank()
              + ") from "
              + SchemaHistory.TABLE
              + ", then apply again");
    }
    if (status.newerThanCode()) {
      throw new SchemaVersionException(
          SchemaVersionException.Reason.NEWER,
          status.schema(),
          status.appliedVersion(),
          status.expected(),
          "the Once schema in '"
              + status.schema()
              + "' is at version "
              + status.appliedVersion()
              + ", newer than this Once, which knows versions up to "
              + status.expected()
              + ": a newer Once migrated it. Run that Once (or a newer one); this one refuses to"
              + " start rather than misread tables it does not know");
    }
    for (Applied row : status.applied()) {
      if (!row.type().equals("SQL")) {
        continue;
      }
      for (Migration m : migrations) {
        if (m.version() == row.version()
            && row.checksum() != null
            && row.checksum() != m.checksum()) {
          throw new SchemaVersionException(
              SchemaVersionException.Reason.DAMAGED,
              status.schema(),
              status.appliedVersion(),
              status.expected(),
              m.label()
                  + " was applied to '"
                  + status.schema()
                  + "' with checksum "
                  + row.checksum()
                  + ", but this Once's "
                  + m.script()
                  + " sums to "
                  + m.checksum()
                  + ": the file or the row in "
                  + SchemaHistory.TABLE
                  + " was changed after it ran");
        }
      }
    }
  }
}
