package dev.once.bench.e2e;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.once.bench.e2e.service.OrderService;
import dev.once.kafka.KafkaTransport;
import dev.once.rabbitmq.RabbitTransport;
import dev.once.spi.QueueAdmin;
import dev.once.spi.Transport;
import dev.once.sqs.SqsTransport;
import dev.once.tablequeue.TableQueueTransport;
import java.io.PrintStream;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import javax.sql.DataSource;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;

/**
 * The service path, in a JVM of its own as a service runs: {@link OrderService} started cold (no
 * ceiling ran in this JVM) and brought to its steady state ({@link JitWarmup}: rounds of {@code
 * warmup} orders until the JIT compiler is quiet), then {@code events} orders from {@code
 * producers} threads at full speed, then a paced run at {@code rate} orders/s for {@code
 * pacedSeconds}. Prints one JSON object on stdout. Its database and broker come in the environment
 * ({@value #DB}, {@value #BROKER}: they may hold passwords), the rest as arguments: {@code
 * transport events producers workers relays warmup rate pacedSeconds latencyProducers
 * timeoutSeconds poolSize}.
 */
public final class ServiceRun {
  static final String DB = "ONCE_SERVICE_DB";
  static final String BROKER = "ONCE_SERVICE_BROKER";

  /** The run's shape, from the command line. */
  record Args(
      String transport,
      long events,
      int producers,
      int workers,
      int relays,
      long warmup,
      double rate,
      int pacedSeconds,
      int latencyProducers,
      long timeoutNanos,
      int pool) {
    static Args parse(String[] a) {
      return new Args(
          a[0],
          Long.parseLong(a[1]),
          Integer.parseInt(a[2]),
          Integer.parseInt(a[3]),
          Integer.parseInt(a[4]),
          Long.parseLong(a[5]),
          Double.parseDouble(a[6]),
          Integer.parseInt(a[7]),
          Integer.parseInt(a[8]),
          Long.parseLong(a[9]) * 1_000_000_000L,
          Integer.parseInt(a[10]));
    }
  }

  private ServiceRun() {}

  public static void main(String[] args) throws Exception {
    PrintStream out = System.out;
    System.setOut(System.err); // stdout holds the JSON alone
    Map<String, Object> j = run(Args.parse(args), System.getenv(DB), System.getenv(BROKER));
    out.println(new ObjectMapper().writeValueAsString(j));
    out.flush();
    System.exit(0); // a transport's client thread must not keep this JVM
  }

  /** The service's figures, on the database at {@code db} and the broker at {@code broker}. */
  static Map<String, Object> run(Args a, String db, String broker) throws Exception {
    Function<DataSource, Transport> transports = transports(a.transport(), broker);
    E2eTimings timings = new E2eTimings(OrderService.ORDERS, OrderService.CONSUMER);
    Map<String, Object> j = new LinkedHashMap<>();
    try (OrderService service =
        new OrderService(db, a.pool(), transports, a.workers(), a.relays(), timings)) {
      DataSource ds = service.dataSource();
      // before the service's consumers join: Kafka refuses to move a group's offsets under them
      purge(ds, a.transport(), transports);
      clear(ds);
      vacuum(ds);
      service.start();
      // one call site into the service for the warm-up and both measured runs, as a user's code
      // has: a lambda per phase made Producers.commit's call site see a new class at the measured
      // run's start, and C2 threw away the producer path it had compiled (class_check traps)
      Producers.Produce orders = (from, to) -> service.placeOrder(from);
      JitWarmup warm = warmUp(orders, ds, timings, a);
      // the state the bench measures its own pipeline and the ceilings in: the warm-up's rows
      // deleted (its orders, effects, markers and outbox rows) and Once's tables vacuumed
      clear(ds);
      vacuum(ds);
      measure(orders, ds, timings, a, warm.orders() + 1, j);
      warm.report("service_", j);
    }
    return j; // its rows are cleared by the bench (ServiceBench), its queue by the next run
  }

  /**
   * Rounds of {@code a.warmup()} orders until the JIT is quiet (none if 0); orders 1 to n. Each
   * round ends with the vacuum the measured run starts after: its long wait for PostgreSQL's answer
   * took socket-reading branches the rounds never took, and C2 recompiled the driver's read path
   * (unstable_if traps) during the measured run.
   */
  private static JitWarmup warmUp(
      Producers.Produce orders, DataSource ds, E2eTimings timings, Args a) throws Exception {
    if (a.warmup() == 0) {
      return JitWarmup.NONE;
    }
    long size = a.warmup();
    long[] next = {1};
    return JitWarmup.run(
        () -> {
          Producers.fullSpeed(orders, a.producers(), 1, next[0], size);
          next[0] += size;
          await(timings, next[0] - 1, a.timeoutNanos());
          vacuum(ds);
          return size;
        },
        "service warm-up",
        System.err,
        a.events());
  }

  private static void measure(
      Producers.Produce orders,
      DataSource ds,
      E2eTimings timings,
      Args a,
      long first,
      Map<String, Object> j)
      throws Exception {
    long jit = JitWarmup.compiledMillis();
    System.err.printf("  service: measured run from order %d%n", first);
    Producers.fullSpeed(orders, a.producers(), 1, first, a.events());
    await(timings, first - 1 + a.events(), a.timeoutNanos());
    double eps = timings.eps(first, first + a.events());
    long[] latencies = timings.latencies(first, first + a.events());
    first += a.events();
    double target = a.rate() > 0 ? a.rate() : eps / 3;
    long paced = Math.round(target * a.pacedSeconds());
    double achieved = 0;
    long[] pacedLatencies = new long[0];
    System.err.printf("  service: %.0f orders/s; paced run at %.0f orders/s%n", eps, target);
    if (paced > 0) {
      if (a.warmup() > 0) {
        Producers.paced(orders, a.latencyProducers(), first, paced, target);
        await(timings, first - 1 + paced, a.timeoutNanos());
        first += paced;
      }
      PacedJit pacedJit = PacedJit.settle("service_paced_", a.warmup() > 0);
      achieved = Producers.paced(orders, a.latencyProducers(), first, paced, target);
      await(timings, first - 1 + paced, a.timeoutNanos());
      pacedLatencies = timings.latencies(first, first + paced);
      j.putAll(pacedJit.figures());
    }
    // compiling during the measured runs, full speed and paced, as e2e_jit_ms for Once's
    j.put("service_jit_ms", JitWarmup.compiledMillis() - jit);
    j.put("service_eps", BenchReport.round(eps));
    j.put("service_p50_ms", E2eBench.ms(Percentiles.of(latencies, 50)));
    j.put("service_p99_ms", E2eBench.ms(Percentiles.of(latencies, 99)));
    j.put("service_paced_rate_eps", BenchReport.round(achieved));
    j.put("service_paced_p50_ms", E2eBench.ms(Percentiles.of(pacedLatencies, 50)));
    j.put("service_paced_p99_ms", E2eBench.ms(Percentiles.of(pacedLatencies, 99)));
    j.put("service_effects", BenchTables.count(ds, "SELECT count(*) FROM service_effects"));
    j.put("service_duplicate_effects", BenchTables.duplicates(ds, "service_effects"));
    j.put("service_pool", a.pool());
  }

  private static Function<DataSource, Transport> transports(String transport, String broker) {
    return ds ->
        switch (transport) {
          case "rabbitmq" -> RabbitTransport.builder().uri(broker).build();
          case "kafka" -> KafkaTransport.builder().bootstrapServers(broker).build();
          case "sqs", "sqs-fifo" -> sqs(broker).fifo(transport.equals("sqs-fifo")).build();
          default -> TableQueueTransport.create(ds);
        };
  }

  /**
   * SQS at {@code endpoint} as the bench reaches it: {@code aws} for AWS (region and credentials
   * from the SDK's default chain, which this JVM's environment carries), else a URL; one on this
   * machine over http (the bench's ElasticMQ) gets dummy credentials and us-east-1, as {@code
   * --sqs-endpoint} gives it.
   */
  static SqsTransport.Builder sqs(String endpoint) {
    SqsTransport.Builder b = SqsTransport.builder();
    if (endpoint.equals("aws")) {
      return b;
    }
    URI uri = URI.create(endpoint);
    b.endpoint(uri);
    if (uri.getScheme().equals("http") && LOOPBACK.contains(uri.getHost())) {
      b.region("us-east-1")
          .credentials(StaticCredentialsProvider.create(AwsBasicCredentials.create("x", "x")));
    }
    return b;
  }

  private static final java.util.Set<String> LOOPBACK =
      java.util.Set.of("127.0.0.1", "localhost", "[::1]");

  static void await(E2eTimings timings, long n, long timeoutNanos) throws InterruptedException {
    if (!timings.await(n, timeoutNanos, () -> {})) {
      throw new IllegalStateException(
          "the service committed only " + timings.effects() + " of " + n + " effects in time");
    }
  }

  /**
   * How long the purge waits for a Kafka group to empty: the members of a run that was killed stay
   * in it until their session times out (45 s, Kafka's default, counted from the broker's start for
   * an embedded broker that restarted).
   */
  static final java.time.Duration KAFKA_GROUP_PATIENCE = java.time.Duration.ofSeconds(60);

  /**
   * The service's queue emptied, its group's offsets moved to the end on Kafka: only while none of
   * its consumers runs (a Kafka group with members refuses it).
   */
  static void purge(DataSource ds, String transport, Function<DataSource, Transport> transports)
      throws InterruptedException {
    long deadline = System.nanoTime() + KAFKA_GROUP_PATIENCE.toNanos();
    while (true) {
      try (Transport t = transports.apply(ds)) {
        t.declare(OrderService.ORDERS, OrderService.CONSUMER);
        t.capability(QueueAdmin.class)
            .ifPresent(a -> a.purge(OrderService.ORDERS, OrderService.CONSUMER));
        return;
      } catch (Exception e) {
        if (!transport.equals("kafka") || System.nanoTime() > deadline) {
          throw new IllegalStateException("service run: could not purge its queue: " + e, e);
        }
        System.err.println("  service: its Kafka group is not empty yet, waiting: " + e);
        Thread.sleep(2_000);
      }
    }
  }

  /** The service's tables, markers and outbox rows deleted. */
  static void clear(DataSource ds) {
    BenchTables.run(
        ds,
        "TRUNCATE service_orders, service_effects;"
            + " DELETE FROM once_inbox WHERE consumer_id = '"
            + OrderService.CONSUMER
            + "'; DELETE FROM once_outbox WHERE destination = '"
            + OrderService.ORDERS
            + "'");
  }

  /** Once's tables vacuumed (on PostgreSQL; InnoDB purges by itself). */
  static void vacuum(DataSource ds) {
    if (!BenchTables.isMariaDb(ds)) {
      BenchTables.run(ds, "VACUUM once_outbox, once_queue, once_inbox");
    }
  }
}
