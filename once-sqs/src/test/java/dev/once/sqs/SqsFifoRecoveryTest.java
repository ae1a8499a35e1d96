package dev.once.sqs;

/**
 * The same on FIFO queues: each event its own key, so its own message group, and a group whose
 * message is in flight hands out nothing else — the contract's 32 keys keep the batch whole.
 */
class SqsFifoRecoveryTest extends SqsRecoveryTest {
  @Override
  SqsTransport.Builder configure(SqsTransport.Builder b) {
    return b.fifo(true);
  }
}
