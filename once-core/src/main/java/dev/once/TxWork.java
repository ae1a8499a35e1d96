package dev.once;

/** Work done inside {@link Once#inTransaction}; returns a value or null. */
@FunctionalInterface
public interface TxWork<T> {
  T run(Tx tx) throws Exception;
}
