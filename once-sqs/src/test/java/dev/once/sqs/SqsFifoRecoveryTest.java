package dev.once.sqs;

/** The same recovery on FIFO queues (32 keys, so 32 message groups). */
class SqsFifoRecoveryTest extends SqsRecoveryTest {
  @Override
  SqsTransport.Builder configure(SqsTransport.Builder b) {
    return b.fifo(true);
  }
}
