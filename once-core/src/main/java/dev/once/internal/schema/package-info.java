/**
 * The schema files and their history: the migrations shipped per dialect ({@code SchemaFiles}), the
 * Flyway-format history they are applied and checked against ({@code SchemaHistory}), the schema
 * they go into ({@code SchemaPlace}) and the check before Once runs ({@code SchemaCheck}). {@code
 * dev.once.Schema} calls in here; nothing here names it back. Not API.
 */
package dev.once.internal.schema;
