/**
 * The RabbitMQ transport's machinery. Not API: anything here may change in any release. Use {@link
 * dev.once.rabbitmq.RabbitTransport} and its builder.
 */
package dev.once.rabbitmq.internal;
