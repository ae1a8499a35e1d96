package dev.once.sqs.internal;

/**
 * A delivery's reference to its SQS message.
 *
 * @param receipt the receipt handle of this receive (what delete and visibility changes name)
 * @param messageId SQS's id of the message, for logs (never the event's identity)
 * @param receivedNanos when it was received ({@link System#nanoTime()}): SQS lets a message stay
 *     invisible at most 12 hours from then
 */
public record SqsHandle(String receipt, String messageId, long receivedNanos) {}
