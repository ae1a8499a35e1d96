package dev.once.rabbitmq.internal;

/**
 * A delivery's reference: its tag and the generation of the channel that delivered it. Tags are per
 * channel: after the channel was lost (and recovered), an old tag means nothing, or worse another
 * message, so settling a stale handle is dropped — the broker hands the message out again anyway.
 */
record Handle(long generation, long tag) {}
