package dev.once.sqs;

/** The same contract on FIFO queues: key as message group, event id as deduplication id. */
class SqsFifoContractTest extends SqsContractTest {
  @Override
  SqsTransport.Builder configure(SqsTransport.Builder b) {
    return b.fifo(true);
  }
}
