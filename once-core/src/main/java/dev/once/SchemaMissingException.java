package dev.once;

/**
 * The database has no (or an incomplete) Once schema, or the schema the connection is set to work
 * in does not exist at all ({@link #table()} is then {@code null}).
 */
public class SchemaMissingException extends OnceException {
  private static final long serialVersionUID = 1L;
  private final String table;
  private final String schema;

  private SchemaMissingException(String table, String schema, String message) {
    super(message);
    this.table = table;
    this.schema = schema;
  }

  /**
   * {@code table} is missing from {@code schema}.
   *
   * @param note what to add after the schema's name, e.g. {@code " (on MariaDB/MySQL the database
   *     is the schema)"}; empty for nothing
   */
  public static SchemaMissingException tableNotFound(String table, String schema, String note) {
    return new SchemaMissingException(table, schema, tableMessage(table, schema, note));
  }

  /**
   * The schema itself does not exist.
   *
   * @param schema its name, or {@code null} when the connection names none
   * @param message what is missing and how to create it
   */
  public static SchemaMissingException schemaNotFound(String schema, String message) {
    return new SchemaMissingException(null, schema, message);
  }

  private static String tableMessage(String table, String schema, String note) {
    return "table "
        + table
        + " not found in schema '"
        + schema
        + "'"
        + note
        + ": apply the Once schema first ('once schema print' shows it; Schema.apply, 'once schema"
        + " apply' or your own migrations apply it)";
  }

  /** The first missing table, or {@code null} when the schema itself is missing. */
  public String table() {
    return table;
  }

  /**
   * The schema (MariaDB/MySQL: the database) it was looked for in; {@code null} when the connection
   * names none.
   */
  public String schema() {
    return schema;
  }
}
