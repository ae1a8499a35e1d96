package dev.once;

/**
 * The work of one keyed request, run inside a Once transaction: its SQL on {@code tx} and its
 * {@code tx.publish} events commit together with the request key and the response it returns, or
 * not at all. Throwing rolls everything back and stores nothing.
 */
@FunctionalInterface
public interface RequestWork {
  StoredResponse run(Tx tx) throws Exception;
}
