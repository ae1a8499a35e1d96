package dev.once;

/** The database has no (or an incomplete) Once schema. */
public class SchemaMissingException extends OnceException {
  private static final long serialVersionUID = 1L;
  private final String table;
  private final String schema;

  public SchemaMissingException(String table, String schema) {
    super(
        "table "
            + table
            + " not found in schema '"
            + schema
            + "': apply the Once schema first ('once schema print' shows it; 'once schema apply'"
            + " or your own migrations apply it)");
    this.table = table;
    this.schema = schema;
  }

  /** The first missing table. */
  public String table() {
    return table;
  }

  /** The schema (MariaDB/MySQL: the database) it was looked for in. */
  public String schema() {
    return schema;
  }
}
