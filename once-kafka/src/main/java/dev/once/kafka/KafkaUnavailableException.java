package dev.once.kafka;

/** The Kafka cluster did not answer an admin call in time, or refused it. */
public final class KafkaUnavailableException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public KafkaUnavailableException(String what, Throwable cause) {
    super(what + ": " + cause, cause);
  }
}
