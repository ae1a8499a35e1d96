package dev.once.app.proof;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One place for a child process in a verify run (a worker, or the producer): the child now running
 * there, every one that ran there before, and the death it is armed with.
 */
final class Slot {
  /** The armed "window" of a slot that verify kills itself, with SIGKILL, at a random moment. */
  static final String SIGKILL = "sigkill";

  final String name;
  final boolean producer;
  private final List<String> args;
  private final Map<String, String> env;
  private final Path log;
  private final List<Child> incarnations = new ArrayList<>();
  Child child;
  String armedWindow;
  long armedAtNanos;
  long deadlineNanos;
  boolean finished;

  Slot(String name, boolean producer, List<String> args, Map<String, String> env, Path log) {
    this.name = name;
    this.producer = producer;
    this.args = args;
    this.env = env;
    this.log = log;
  }

  /** Starts (again) a process with the same command line, unarmed. */
  void start() {
    child = Child.start(name + "#" + incarnations.size(), log, args, env);
    incarnations.add(child);
    armedWindow = null;
  }

  void arm(String window, int after, long deadline) {
    armedWindow = window;
    armedAtNanos = System.nanoTime();
    deadlineNanos = deadline;
    if (!SIGKILL.equals(window)) {
      child.arm(window, after);
    }
  }

  /** Takes back an armed window (a SIGKILL that is due is simply not sent). */
  void disarm() {
    if (armedWindow != null && !SIGKILL.equals(armedWindow)) {
      child.disarm();
    }
    armedWindow = null;
  }

  /** The sum of the last stats of every incarnation. */
  long[] stats() {
    long[] sum = new long[4];
    for (Child c : incarnations) {
      long[] s = c.stats();
      for (int i = 0; i < sum.length; i++) {
        sum[i] += s[i];
      }
    }
    return sum;
  }

  int restarts() {
    return Math.max(0, incarnations.size() - 1);
  }
}
