package dev.once.test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * Virtual hosts of the local RabbitMQ for tests, made and removed with {@code rabbitmqctl}: one
 * call per virtual host instead of three. Each call boots an Erlang CLI (2-5 s on a loaded 2-core
 * machine, most of it waiting), so {@link #create} adds the virtual host, gives guest every
 * permission and deletes the ones {@link #delete} queued since, in one {@code rabbitmqctl eval};
 * what is still queued when the JVM exits goes in one last call. Should the broker not know the
 * functions eval names, it falls back to the three plain commands.
 */
public final class RabbitVhosts {
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]+");
  private static final String ACTOR = "<<\"once-tests\">>";
  private static final List<String> queued = new ArrayList<>();
  private static boolean hooked;

  private RabbitVhosts() {}

  /** Adds {@code vhost} with every permission for guest (and deletes the queued ones first). */
  public static synchronized void create(String vhost) {
    String name = checked(vhost);
    String add =
        "ok = rabbit_vhost:add(%s, %s), ok = rabbit_auth_backend_internal:set_permissions("
                .formatted(binary(name), ACTOR)
            + "<<\"guest\">>, %s, <<\".*\">>, <<\".*\">>, <<\".*\">>, %s)."
                .formatted(binary(name), ACTOR);
    Result r = run(List.of("rabbitmqctl", "eval", deletions() + add));
    if (r.exit == 0 && r.out.strip().equals("ok")) {
      queued.clear();
      return;
    }
    ctl("add_vhost", name);
    ctl("set_permissions", "-p", name, "guest", ".*", ".*", ".*");
  }

  /**
   * Queues {@code vhost} for deletion at the next {@link #create} or at exit: a test closes its
   * connections first, so nothing waits for the virtual host to go.
   */
  public static synchronized void delete(String vhost) {
    queued.add(checked(vhost));
    if (!hooked) {
      Runtime.getRuntime().addShutdownHook(new Thread(RabbitVhosts::deleteQueued, "vhosts"));
      hooked = true;
    }
  }

  private static synchronized void deleteQueued() {
    if (queued.isEmpty()) {
      return;
    }
    Result r = run(List.of("rabbitmqctl", "eval", deletions() + "ok."));
    if (r.exit != 0) {
      queued.forEach(v -> run(List.of("rabbitmqctl", "delete_vhost", v)));
    }
    queued.clear();
  }

  /** Deletes every queued virtual host; one already gone is no error. */
  private static String deletions() {
    StringBuilder s = new StringBuilder();
    for (String v : queued) {
      s.append("(catch rabbit_vhost:delete(").append(binary(v)).append(", ").append(ACTOR);
      s.append(")), ");
    }
    return s.toString();
  }

  private static String binary(String name) {
    return "<<\"" + name + "\">>";
  }

  private static String checked(String vhost) {
    if (!NAME.matcher(vhost).matches()) {
      throw new IllegalArgumentException("a test vhost is [A-Za-z0-9._-]+, was '" + vhost + "'");
    }
    return vhost;
  }

  private static void ctl(String... args) {
    List<String> command = new ArrayList<>(List.of("rabbitmqctl"));
    command.addAll(List.of(args));
    Result r = run(command);
    if (r.exit != 0) {
      throw new AssertionError(command + " exited " + r.exit + ": " + r.out);
    }
  }

  private record Result(int exit, String out) {}

  private static Result run(List<String> command) {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      if (!p.waitFor(90, TimeUnit.SECONDS)) { // its output is a few lines: no pipe fills up
        p.destroyForcibly();
        throw new AssertionError(command + " took more than 90 s");
      }
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      return new Result(p.exitValue(), out);
    } catch (IOException e) {
      throw new AssertionError("cannot run " + command + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted: " + command, e);
    }
  }
}
