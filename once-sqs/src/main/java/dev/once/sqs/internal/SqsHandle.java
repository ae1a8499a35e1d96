package dev.once.sqs.internal;

/**
 * A delivery's reference to its SQS message.
 *
 * @param receipt the receipt handle of this receive (what delete and visibility changes name)
 * @param messageId SQS's id of the message, for logs (never the event's identity)
 * @param receivedNanos when it was received ({@link System#nanoTime()}): SQS lets a message stay
 *     invisible at most 12 hours from then
 * @param receiveCount SQS's count of the message's receives, this one included: of two receives of
 *     the same message, the one with the higher count is the later (their answers may arrive in
 *     either order)
 */
public record SqsHandle(String receipt, String messageId, long receivedNanos, int receiveCount) {

  /**
   * What the receiver holds the message by: SQS's message id, or, from an endpoint that answers
   * without one, the receipt handle (then a second receive of a held message is not recognised as
   * such, as no endpoint that omits the id can say which message a receipt belongs to).
   */
  String heldKey() {
    return messageId != null ? messageId : "receipt " + receipt;
  }
}
