/** A {@link dev.once.PayloadCodec} for records and POJOs as JSON, through Jackson. */
package dev.once.jackson;
