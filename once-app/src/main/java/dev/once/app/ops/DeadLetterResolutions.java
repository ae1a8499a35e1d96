package dev.once.app.ops;

import dev.once.DeadLetter;
import dev.once.DeadLetterFilter;
import dev.once.DeadLetters;
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

    @Mixin TransportOptions transport;

    abstract List<DeadLetter> act(DeadLetters d, DeadLetterFilter f, String actor);

    /** What was done, in the past tense: "replayed", "discarded". */
    abstract String done();

    @Override
    public Integer call() {
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
      description =
          "Publish the selected open dead letters again, same event id (a consumer that processed"
              + " the event meanwhile sees a DUPLICATE); relay dead letters go back to the outbox.")
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
    String done() {
      return "replayed";
    }
  }

  @Command(name = "discard", description = "Close the selected open dead letters without replay.")
  static final class Discard extends Resolve {
    @Override
    List<DeadLetter> act(DeadLetters d, DeadLetterFilter f, String actor) {
      return d.discard(f, actor, reason);
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
}
