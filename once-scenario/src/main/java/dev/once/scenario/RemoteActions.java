package dev.once.scenario;

import dev.once.ReceivedEvent;
import dev.once.Tx;

/**
 * The scenario's remote actions, recorded in the consumers' transactions and performed later: the
 * order's charge at the payment provider, the dispatch e-mail at the mail relay. The demo performs
 * them over HTTP at a simulated provider; the other commands leave them out.
 */
public interface RemoteActions {
  void recordCharge(Tx tx, long orderId);

  void recordEmail(Tx tx, ReceivedEvent event, long orderId);
}
