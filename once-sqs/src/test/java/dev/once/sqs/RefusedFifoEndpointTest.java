package dev.once.sqs;

/**
 * The same on FIFO queues: a send SQS took just before the refusal and that the relay sends again
 * after it is dropped by FIFO's deduplication (within its 5 minutes) or, where SQS never took it,
 * sent for the first time; either way one effect.
 */
class RefusedFifoEndpointTest extends RefusedEndpointTest {
  @Override
  SqsTransport.Builder configure(SqsTransport.Builder b) {
    return b.fifo(true);
  }
}
