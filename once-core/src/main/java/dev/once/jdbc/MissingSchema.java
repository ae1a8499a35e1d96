package dev.once.jdbc;

/**
 * The schema a connection is set to work in, when it does not exist: what it is, and how Once may
 * create it.
 *
 * @param name the schema's name (MariaDB/MySQL: the database's), or {@code null} when the
 *     connection names none
 * @param where what names it and where, for messages, e.g. {@code schema 'shop' (the first of the
 *     search_path, which the URL's currentSchema sets) in database 'test'}
 * @param create the statement that creates it, or {@code null} when Once cannot create it
 * @param privilege what the role needs to run {@code create}, e.g. {@code CREATE on database
 *     'test'}
 * @param howToCreate what a user does to create it themselves
 */
public record MissingSchema(
    String name, String where, String create, String privilege, String howToCreate) {}
