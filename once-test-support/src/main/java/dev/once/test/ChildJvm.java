package dev.once.test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The command line of a child JVM that runs {@code main} on this test JVM's class path, as a second
 * process of the application: a test that kills it, or lets it halt itself, starts one per attempt.
 * It runs with the client compiler only and the serial collector: such a child lives a few seconds,
 * and on a 2-core machine the server compiler's threads of each new JVM took CPU from the test and
 * the database for code the child never ran long enough to gain from (KilledByPoisonTest and
 * PoisonInBatchTest, 15 children: 0.51, 0.73 and 1.00 of their time without the flags in three
 * pairs at load 26-37). The flags change how fast the child runs, not what it does.
 */
public final class ChildJvm {
  private ChildJvm() {}

  /** {@code java <flags> -cp <this class path> main args…}. */
  public static List<String> command(Class<?> main, String... args) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-XX:TieredStopAtLevel=1");
    command.add("-XX:+UseSerialGC");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(main.getName());
    command.addAll(List.of(args));
    return command;
  }
}
