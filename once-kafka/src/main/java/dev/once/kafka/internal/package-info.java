/** Not API: the Kafka transport's parts. May change in any release. */
package dev.once.kafka.internal;
