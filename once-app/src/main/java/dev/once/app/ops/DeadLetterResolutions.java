package dev.once.app.ops;

import dev.once.DeadLetter;
import dev.once.DeadLetterFilter;
import dev.once.DeadLetters;
import dev.once.ParkedKey;
import dev.once.app.common.TransportOptions;
import dev.once.app.common.UserError;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code once dead-letters replay | discard}: the subcommands that change dead letters, each change
 * recorded with who made it and why; {@link DeadLettersCommand} holds those that read.
 */
final class DeadLetterResolutions {
  private DeadLetterResolutions() {}

  /** Replay and discard: open dead letters only, every one recorded with actor and reason. */
  abstract static class Resolve extends DeadLettersCommand.Base {
    @Parameters(
        paramLabel = "ID",
        arity = "0..*",
        description = "Ids as 'list' prints them: 12, a range 3-7, or several.")
    List<String> ids;

    @Option(names = "--all", description = "Required when no filter narrows the selection.")
    boolean all;

    @Option(names = "--actor", description = "Who does this (default: user@host).")
    String actor;

    @Option(names = "--reason", description = "Why, recorded with the action.")
    String reason;

    @Option(
        names = "--key",
        description =
            "Act on the whole key an ordered consumer parked (with --consumer: that group's only),"
                + " instead of dead letters: see the subcommand's description.")
    String key;

    @Mixin TransportOptions transport;

    abstract List<DeadLetter> act(DeadLetters d, DeadLetterFilter f, String actor);

    /** The whole parked key's resolution: the keys acted on. */
    abstract List<ParkedKey> actOnKey(DeadLetters d, String consumer, String actor);

    /** One line per key acted on. */
    abstract String keyLine(ParkedKey k);

    /** What was done, in the past tense: "replayed", "discarded". */
    abstract String done();

    @Override
    public Integer call() {
      if (key != null) {
        return callOnKey();
      }
      DeadLetterFilter f = filter("dead", ids);
      if (f.isUnfiltered() && !all) {
        throw new UserError(
            "no dead letter named: give ids as 'once dead-letters list' prints them (3 5 9-11),"
                + " a filter (--consumer, --event, --type, --fingerprint, --since, --until), or"
                + " --all to act on every open dead letter");
      }
      String who = actor != null ? actor : defaultActor();
      List<String> notes = new ArrayList<>();
      List<DeadLetter> done =
          withDeadLetters(
              d -> {
                notes.addAll(notOpen(d, f));
                return act(d, f, who);
              },
              transport);
      for (DeadLetter d : done) {
        System.out.println(line(done(), d));
      }
      if (done.size() > 1) {
        System.out.println(done() + " " + done.size() + " dead letters");
      }
      if (done.isEmpty() && notes.isEmpty()) {
        notes.add("no open dead letter matches" + DeadLetterIds.withFilters(f));
      }
      if (done.isEmpty()) {
        notes.set(notes.size() - 1, notes.get(notes.size() - 1) + ": nothing " + done());
      }
      notes.forEach(n -> System.err.println("once: " + n));
      return notes.isEmpty() ? 0 : 1;
    }

    private Integer callOnKey() {
      DeadLetterFilter f = filters.filter(null);
      if (ids != null && !ids.isEmpty()
          || f.eventId() != null
          || f.type() != null
          || f.fingerprint() != null
          || f.from() != null
          || f.to() != null) {
        throw new UserError(
            "--key names a whole parked key: give it alone, or with --consumer (ids and the other"
                + " filters select dead letters)");
      }
      String who = actor != null ? actor : defaultActor();
      List<ParkedKey> done = withDeadLetters(d -> actOnKey(d, f.consumerId(), who), transport);
      done.forEach(k -> System.out.println(keyLine(k)));
      if (done.isEmpty()) {
        System.err.println(
            "once: no key '"
                + key
                + "' is parked"
                + (f.consumerId() == null ? "" : " by consumer " + f.consumerId())
                + " behind an open dead letter ('once dead-letters keys' lists them): nothing "
                + done());
        return 1;
      }
      return 0;
    }

    /** {@code replayed dead letter 7 (event order-paid:2, consumer warehouse)}. */
    static String line(String done, DeadLetter d) {
      return done
          + " dead letter "
          + d.id()
          + " (event "
          + d.event().id()
          + ", "
          + (d.isRelay() ? "relay: back to the outbox of " + d.event().destination() : "consumer ")
          + (d.isRelay() ? "" : d.consumerId())
          + ")";
    }

    /** Why some of the ids asked for are not acted on: missing, or not open any more. */
    private static List<String> notOpen(DeadLetters d, DeadLetterFilter open) {
      if (open.ids() == null) {
        return List.of();
      }
      DeadLetterFilter any = open.status(null);
      List<DeadLetter> found = d.list(any);
      List<String> notes = new ArrayList<>();
      for (DeadLetter x : found) {
        if (!x.isOpen()) {
          notes.add("dead letter " + x.id() + " is " + x.status() + ", not open: left as it is");
        }
      }
      List<Long> missing = DeadLetterIds.missing(any, found);
      if (!missing.isEmpty()) {
        notes.add(
            "no dead letter " + DeadLetterIds.ranges(missing) + DeadLetterIds.withFilters(any));
      }
      return notes;
    }
  }

  @Command(
      name = "replay",
      description = {
        "Publish the selected open dead letters again, same event id (a consumer that processed"
            + " the event meanwhile sees a DUPLICATE); relay dead letters go back to the outbox.",
        "The head of a key an ordered consumer parked goes back to its place, and the key is"
            + " released in the same transaction: the head runs first, then the events behind it,"
            + " in order. --key KEY replays the head of that parked key (of every ordered consumer"
            + " that parked it, or of --consumer's)."
      })
  static final class Replay extends Resolve {
    @Option(
        names = "--beyond-horizon",
        description =
            "Replay dead letters older than the replay horizon (7 days) too. Refused without it:"
                + " retention may have deleted the markers that make a second delivery a"
                + " DUPLICATE, so check by hand that the effects are not there first.")
    boolean beyondHorizon;

    @Override
    List<DeadLetter> act(DeadLetters d, DeadLetterFilter f, String actor) {
      return beyondHorizon ? d.replayBeyondHorizon(f, actor, reason) : d.replay(f, actor, reason);
    }

    @Override
    List<ParkedKey> actOnKey(DeadLetters d, String consumer, String actor) {
      if (beyondHorizon) {
        throw new UserError(
            "--beyond-horizon replays dead letters by id: give the head's dead letter id as"
                + " 'once dead-letters keys' prints it instead of --key");
      }
      return d.replayKey(consumer, key, actor, reason);
    }

    @Override
    String keyLine(ParkedKey k) {
      return "replayed "
          + parkedKey(k)
          + " runs first, then the "
          + k.eventsBehind()
          + " events behind it";
    }

    @Override
    String done() {
      return "replayed";
    }
  }

  @Command(
      name = "discard",
      description = {
        "Close the selected open dead letters without replay. A discarded head of a key an"
            + " ordered consumer parked releases the key: the events behind it run, in order.",
        "--key KEY discards the whole parked key instead: its head's dead letter and the events"
            + " waiting behind it, which are deleted from the queue (each recorded in the action"
            + " log under its own event id), in one transaction; events of the key published"
            + " afterwards run as usual."
      })
  static final class Discard extends Resolve {
    @Override
    List<DeadLetter> act(DeadLetters d, DeadLetterFilter f, String actor) {
      return d.discard(f, actor, reason);
    }

    @Override
    List<ParkedKey> actOnKey(DeadLetters d, String consumer, String actor) {
      return d.discardKey(consumer, key, actor, reason);
    }

    @Override
    String keyLine(ParkedKey k) {
      return "discarded "
          + parkedKey(k)
          + " and the "
          + k.eventsBehind()
          + " events behind it, deleted";
    }

    @Override
    String done() {
      return "discarded";
    }
  }

  static String defaultActor() {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (java.io.IOException e) {
      host = "unknown-host";
    }
    return System.getProperty("user.name", "unknown") + "@" + host;
  }

  /** "parked key K (consumer C, destination D): head event H", as both key lines begin. */
  static String parkedKey(ParkedKey k) {
    return "parked key "
        + k.key()
        + " (consumer "
        + k.consumerGroup()
        + ", destination "
        + k.destination()
        + "): head event "
        + k.headEventId();
  }
}
