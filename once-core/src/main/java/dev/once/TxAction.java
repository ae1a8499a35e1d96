package dev.once;

/** Work done inside {@link Once#useTransaction} that returns nothing. */
@FunctionalInterface
public interface TxAction {
  void run(Tx tx) throws Exception;
}
