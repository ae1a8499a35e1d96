/**
 * The RabbitMQ transport: publisher confirms, quorum queues with a delivery limit, manual
 * acknowledgements after the commit, recovery. Start with {@link
 * dev.once.rabbitmq.RabbitTransport#builder()}.
 */
package dev.once.rabbitmq;
