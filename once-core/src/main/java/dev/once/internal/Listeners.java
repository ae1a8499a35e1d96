package dev.once.internal;

import dev.once.Event;
import dev.once.LookupAnswer;
import dev.once.OnceListener;
import dev.once.OperationResult;
import dev.once.OperationState;
import dev.once.Outcome;
import dev.once.ReceivedEvent;
import dev.once.RequestKey;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Calls several listeners in order. A listener's RuntimeException is logged and swallowed; an Error
 * propagates (it stands for a crash of the worker at that point).
 */
public final class Listeners implements OnceListener {
  private static final Logger log = LoggerFactory.getLogger(Listeners.class);
  private final List<OnceListener> listeners;

  /**
   * {@link OnceListener#NOOP} is left out: it does nothing, and with no listener left a producer's
   * transaction calls none (no lambda and no iterator per commit).
   */
  public Listeners(List<OnceListener> listeners) {
    this.listeners = List.copyOf(listeners).stream().filter(l -> l != OnceListener.NOOP).toList();
  }

  private void each(String step, Consumer<OnceListener> call) {
    for (OnceListener l : listeners) {
      try {
        call.accept(l);
      } catch (RuntimeException e) {
        log.warn( // a listener sees events: its exception's message may quote a payload
            "listener {} failed at {}; processing goes on: {}",
            l.getClass().getName(),
            step,
            Failure.withoutMessage(e));
      }
    }
  }

  @Override
  public void beforeProducerCommit(List<Event> events) {
    if (listeners.isEmpty()) {
      return;
    }
    each("beforeProducerCommit", l -> l.beforeProducerCommit(events));
  }

  @Override
  public void producerCommitted(List<Event> events) {
    if (listeners.isEmpty()) {
      return;
    }
    each("producerCommitted", l -> l.producerCommitted(events));
  }

  @Override
  public void received(List<ReceivedEvent> batch) {
    each("received", l -> l.received(batch));
  }

  @Override
  public void markerInserted(ReceivedEvent event) {
    each("markerInserted", l -> l.markerInserted(event));
  }

  @Override
  public void handled(ReceivedEvent event) {
    each("handled", l -> l.handled(event));
  }

  @Override
  public void handlerFailed(ReceivedEvent event, Throwable error) {
    each("handlerFailed", l -> l.handlerFailed(event, error));
  }

  @Override
  public void transientRollback(List<ReceivedEvent> batch, SQLException cause) {
    each("transientRollback", l -> l.transientRollback(batch, cause));
  }

  @Override
  public void committed(List<ReceivedEvent> events) {
    each("committed", l -> l.committed(events));
  }

  @Override
  public void outcome(ReceivedEvent event, Outcome outcome, Duration sinceReceived) {
    each("outcome", l -> l.outcome(event, outcome, sinceReceived));
  }

  @Override
  public void published(List<Event> events) {
    each("published", l -> l.published(events));
  }

  @Override
  public void markedSent(List<Event> events, Duration oldestAge) {
    each("markedSent", l -> l.markedSent(events, oldestAge));
  }

  @Override
  public void publishFailed(Event event, String reason) {
    each("publishFailed", l -> l.publishFailed(event, reason));
  }

  @Override
  public void operationKeyStored(OperationResult operation) {
    each("operationKeyStored", l -> l.operationKeyStored(operation));
  }

  @Override
  public void operationAnswered(OperationResult operation, OperationState answer) {
    each("operationAnswered", l -> l.operationAnswered(operation, answer));
  }

  @Override
  public void operationStored(OperationResult operation) {
    each("operationStored", l -> l.operationStored(operation));
  }

  @Override
  public void operationReconciled(
      OperationResult operation, LookupAnswer answer, String resolution) {
    each("operationReconciled", l -> l.operationReconciled(operation, answer, resolution));
  }

  @Override
  public void beforeRequestCommit(RequestKey key) {
    each("beforeRequestCommit", l -> l.beforeRequestCommit(key));
  }

  @Override
  public void requestCommitted(RequestKey key) {
    each("requestCommitted", l -> l.requestCommitted(key));
  }
}
