package dev.once;

/**
 * A broker could not be reached, did not answer in time, or refused a call (a connection being
 * recovered, a missing queue, a denied permission). The one exception every transport throws for
 * it; relays and consumers back off and try again, and nothing was published or acknowledged by the
 * failed call. {@link #broker()} says which broker, {@link #problem()} what failed.
 */
public class BrokerUnavailableException extends OnceException {
  private static final long serialVersionUID = 1L;
  private final String broker;
  private final String problem;

  /**
   * @param broker which broker, without secrets, e.g. {@code RabbitMQ at amqp://host:5672/}, {@code
   *     Kafka}, {@code SQS}
   * @param problem what failed, e.g. {@code is not reachable: …}
   * @param cause the client's error, or null
   */
  public BrokerUnavailableException(String broker, String problem, Throwable cause) {
    super(broker + " " + problem, cause);
    this.broker = broker;
    this.problem = problem;
  }

  /** {@code broker} failed {@code operation} with {@code cause}: "{@code operation}: cause". */
  public static BrokerUnavailableException failed(
      String broker, String operation, Throwable cause) {
    return new BrokerUnavailableException(broker, operation + ": " + cause, cause);
  }

  /** Which broker, without secrets, e.g. {@code RabbitMQ at amqp://host:5672/}. */
  public String broker() {
    return broker;
  }

  /** What failed, e.g. {@code create topic orders: …} or {@code is not reachable: …}. */
  public String problem() {
    return problem;
  }
}
