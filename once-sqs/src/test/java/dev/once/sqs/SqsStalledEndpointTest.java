package dev.once.sqs;

import dev.once.DatabaseTimeouts;
import dev.once.testkit.TcpProxy;
import java.time.Duration;

/**
 * {@link dev.once.testkit.HalfOpenContract} with SQS stalled instead of the database: the {@link
 * dev.once.testkit.TcpProxy} in front of ElasticMQ blackholes every connection open at the 40th
 * delivery (the relay's sends, the receives, the batch's deletes get no answer; SQS keeps what it
 * had). The SDK's attempt timeout (5 s) ends each stalled call; calls on new connections go
 * through. Every event is still processed once: a delete lost in the stall only brings its message
 * back as a {@code DUPLICATE}, a send lost in it is sent again.
 */
class SqsStalledEndpointTest extends SqsHalfOpenTest {

  /** A pool straight to the test database; the worker's proxy is in front of SQS. */
  @Override
  protected Worker newWorker(DatabaseTimeouts timeouts) {
    TcpProxy proxy = Sqs.proxy();
    SqsTransport.Builder b =
        Sqs.transport()
            .receivesInFlight(4)
            .visibilityTimeout(Duration.ofSeconds(10))
            .requestTimeout(Duration.ofSeconds(5));
    return Worker.of(database().newPool(6), Sqs.through(proxy, b), proxy);
  }
}
