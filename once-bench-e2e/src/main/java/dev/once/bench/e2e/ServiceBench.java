package dev.once.bench.e2e;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs {@link ServiceRun} in a child JVM on this bench's database and broker, with the bench's
 * class path, heap and -X options, and returns its figures. A JVM of its own: nothing the ceilings
 * or the bench's pipeline compiled or pooled helps it, as in a user's process.
 */
final class ServiceBench {
  private ServiceBench() {}

  /** {@code rate}: the paced run's orders/s (0: a third of its own sustained rate). */
  static Map<String, Object> run(
      BenchEnv env, int warmup, double rate, int pool, PrintStream progress) throws Exception {
    if (env.jdbcUrl() == null) {
      throw new IllegalStateException("--service needs the database's JDBC URL, which is unknown");
    }
    BenchSettings s = env.settings();
    ProcessBuilder pb = new ProcessBuilder(command(env, warmup, rate, pool));
    pb.environment().put(ServiceRun.DB, env.jdbcUrl());
    String broker =
        switch (env.transportName()) {
          case "rabbitmq" -> env.amqp();
          case "kafka" -> env.bootstrap();
          case "sqs", "sqs-fifo" ->
              env.sqsEndpoint() == null ? "aws" : env.sqsEndpoint().toString();
          default -> "";
        };
    pb.environment().put(ServiceRun.BROKER, broker);
    File log = File.createTempFile("once-bench-service", ".log");
    log.deleteOnExit();
    progress.printf("  the example service (OrderService) in a JVM of its own ...%n");
    Process p = pb.start();
    Thread stderr = echo(p, log, progress);
    byte[] out = p.getInputStream().readAllBytes();
    stderr.join(10_000);
    if (!p.waitFor(s.timeoutSeconds() + 120L, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IllegalStateException("the example service did not finish in --timeout");
    }
    String json = lastLine(new String(out, StandardCharsets.UTF_8));
    if (p.exitValue() != 0 || json.isEmpty()) {
      String err = java.nio.file.Files.readString(log.toPath());
      throw new IllegalStateException(
          "the example service failed (exit "
              + p.exitValue()
              + "): "
              + json
              + " "
              + err.substring(Math.max(0, err.length() - 2000)));
    }
    ServiceRun.clear(env.dataSource()); // the child's pool is closed; its queue stays for its next
    @SuppressWarnings("unchecked")
    Map<String, Object> figures = new ObjectMapper().readValue(json, Map.class);
    return figures;
  }

  /**
   * The child's JSON: the last line of its stdout (the JVM may print there before it, e.g. JFR's
   * "Started recording" for an {@value #CHILD_JAVA_OPTS} that records).
   */
  static String lastLine(String stdout) {
    String s = stdout.strip();
    return s.substring(s.lastIndexOf('\n') + 1).strip();
  }

  /** The child's command line: this JVM's java, heap, -X options and class path. */
  private static List<String> command(BenchEnv env, int warmup, double rate, int pool) {
    BenchSettings s = env.settings();
    List<String> cmd = new ArrayList<>();
    cmd.add(System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
    cmd.add("-Xmx" + (Runtime.getRuntime().maxMemory() >> 20) + "m");
    cmd.addAll(jvmOptions());
    cmd.addAll(childOptions(System.getenv(CHILD_JAVA_OPTS)));
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(ServiceRun.class.getName());
    cmd.add(env.transportName());
    cmd.add(Long.toString(s.events()));
    cmd.add(Integer.toString(s.producers()));
    cmd.add(Integer.toString(s.workers()));
    cmd.add(Integer.toString(s.relays()));
    cmd.add(Integer.toString(warmup));
    cmd.add(Double.toString(rate));
    cmd.add(Integer.toString(s.latencySeconds()));
    cmd.add(Integer.toString(s.latencyProducers()));
    cmd.add(Integer.toString(s.timeoutSeconds()));
    cmd.add(Integer.toString(pool));
    return cmd;
  }

  /**
   * The child's stderr into {@code log} (shown if it fails), its progress lines (those starting
   * {@value #PROGRESS}) also on {@code progress}.
   */
  private static Thread echo(Process p, File log, PrintStream progress) {
    Thread t =
        new Thread(
            () -> {
              try (var in =
                      new java.io.BufferedReader(
                          new java.io.InputStreamReader(
                              p.getErrorStream(), StandardCharsets.UTF_8));
                  var to = java.nio.file.Files.newBufferedWriter(log.toPath())) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                  to.write(line);
                  to.newLine();
                  if (line.startsWith(PROGRESS)) {
                    progress.println(line);
                  }
                }
              } catch (java.io.IOException e) {
                progress.println("  (the example service's stderr could not be read: " + e + ")");
              }
            },
            "service-stderr");
    t.setDaemon(true);
    t.start();
    return t;
  }

  /**
   * Options for the service's JVM alone, e.g. {@code -XX:StartFlightRecording=filename=s.jfr} or
   * {@code -XX:+UnlockDiagnosticVMOptions -XX:+LogCompilation}: to see what its JIT does without
   * the bench's JVM writing the same file, or printing on the child's stdout, which holds its JSON.
   */
  static final String CHILD_JAVA_OPTS = "ONCE_SERVICE_JAVA_OPTS";

  /** {@code opts} split at white space (none if null or blank). */
  static List<String> childOptions(String opts) {
    return opts == null || opts.isBlank() ? List.of() : List.of(opts.strip().split("\\s+"));
  }

  /** How the child's progress lines start. */
  static final String PROGRESS = "  service";

  /**
   * This JVM's own -X options ({@code ONCE_JAVA_OPTS}: heap, GC, JIT flags), for the child: the
   * service runs with the flags the bench's Once runs with. Agents and properties stay here.
   */
  static List<String> jvmOptions() {
    return java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
        .filter(a -> a.startsWith("-X"))
        .toList();
  }
}
