package dev.once;

/**
 * A consumer's business logic over a typed payload: {@code payload} is the event's payload decoded
 * by the {@link PayloadCodec}. Same transaction and rules as {@link Handler}; a payload that cannot
 * be decoded is a dead letter at once ({@link PayloadDecodingException}).
 *
 * @param <T> the payload's type
 */
@FunctionalInterface
public interface TypedHandler<T> {
  void handle(Tx tx, T payload, ReceivedEvent event) throws Exception;
}
