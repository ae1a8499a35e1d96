/**
 * The table-queue transport: a broker in a table of the same database, so that a single PostgreSQL
 * is all Once needs. {@link dev.once.tablequeue.TableQueueTransport#create} is the entry point.
 */
package dev.once.tablequeue;
