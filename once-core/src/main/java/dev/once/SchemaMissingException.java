package dev.once;

/** The database has no (or an incomplete) Once schema. */
public class SchemaMissingException extends OnceException {
  private static final long serialVersionUID = 1L;
  private final String table;

  public SchemaMissingException(String table, String schema) {
    super(
        "table "
            + table
            + " not found in schema '"
            + schema
            + "': apply the Once schema first ('once schema print' shows it; 'once schema apply'"
            + " or your own migrations apply it)");
    this.table = table;
  }

  public String table() {
    return table;
  }
}
