package dev.once.bench.e2e;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.once.bench.e2e.service.OrderService;
import dev.once.kafka.KafkaTransport;
import dev.once.rabbitmq.RabbitTransport;
import dev.once.spi.QueueAdmin;
import dev.once.spi.Transport;
import dev.once.tablequeue.TableQueueTransport;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import javax.sql.DataSource;

/**
 * The service path, in a JVM of its own as a service runs: {@link OrderService} started cold (no
 * ceiling ran in this JVM), {@code warmup} orders through it unmeasured, then {@code events} orders
 * from {@code producers} threads at full speed, then a paced run at {@code rate} orders/s for
 * {@code pacedSeconds}. Prints one JSON object on stdout. Its database and broker come in the
 * environment ({@value #DB}, {@value #BROKER}: they may hold passwords), the rest as arguments:
 * {@code transport events producers workers relays warmup rate pacedSeconds latencyProducers
 * timeoutSeconds poolSize}.
 */
public final class ServiceRun {
  static final String DB = "ONCE_SERVICE_DB";
  static final String BROKER = "ONCE_SERVICE_BROKER";

  private ServiceRun() {}

  public static void main(String[] args) throws Exception {
    PrintStream out = System.out;
    System.setOut(System.err); // stdout holds the JSON alone
    String transport = args[0];
    long events = Long.parseLong(args[1]);
    int producers = Integer.parseInt(args[2]);
    int workers = Integer.parseInt(args[3]);
    int relays = Integer.parseInt(args[4]);
    long warmup = Long.parseLong(args[5]);
    double rate = Double.parseDouble(args[6]);
    int pacedSeconds = Integer.parseInt(args[7]);
    int latencyProducers = Integer.parseInt(args[8]);
    long timeout = Long.parseLong(args[9]) * 1_000_000_000L;
    int pool = Integer.parseInt(args[10]);
    String broker = System.getenv(BROKER);
    Function<DataSource, Transport> transports =
        ds ->
            switch (transport) {
              case "rabbitmq" -> RabbitTransport.builder().uri(broker).build();
              case "kafka" -> KafkaTransport.builder().bootstrapServers(broker).build();
              default -> TableQueueTransport.create(ds);
            };
    E2eTimings timings = new E2eTimings(OrderService.ORDERS, OrderService.CONSUMER);
    Map<String, Object> j = new LinkedHashMap<>();
    try (OrderService service =
        new OrderService(System.getenv(DB), pool, transports, workers, relays, timings)) {
      clear(service.dataSource(), transports);
      service.start();
      long first = 1;
      if (warmup > 0) {
        Producers.fullSpeed((from, to) -> service.placeOrder(from), producers, 1, first, warmup);
        await(timings, warmup, timeout);
        first += warmup;
      }
      Producers.fullSpeed((from, to) -> service.placeOrder(from), producers, 1, first, events);
      await(timings, first - 1 + events, timeout);
      double eps = timings.eps(first, first + events);
      long[] latencies = timings.latencies(first, first + events);
      first += events;
      double target = rate > 0 ? rate : eps / 3;
      long paced = Math.round(target * pacedSeconds);
      double achieved = 0;
      long[] pacedLatencies = new long[0];
      if (paced > 0) {
        achieved =
            Producers.paced(
                (from, to) -> service.placeOrder(from), latencyProducers, first, paced, target);
        await(timings, first - 1 + paced, timeout);
        pacedLatencies = timings.latencies(first, first + paced);
      }
      j.put("service_eps", BenchReport.round(eps));
      j.put("service_p50_ms", E2eBench.ms(Percentiles.of(latencies, 50)));
      j.put("service_p99_ms", E2eBench.ms(Percentiles.of(latencies, 99)));
      j.put("service_paced_rate_eps", BenchReport.round(achieved));
      j.put("service_paced_p50_ms", E2eBench.ms(Percentiles.of(pacedLatencies, 50)));
      j.put("service_paced_p99_ms", E2eBench.ms(Percentiles.of(pacedLatencies, 99)));
      j.put(
          "service_effects",
          BenchTables.count(service.dataSource(), "SELECT count(*) FROM service_effects"));
      j.put(
          "service_duplicate_effects",
          BenchTables.duplicates(service.dataSource(), "service_effects"));
      j.put("service_pool", pool);
      clear(service.dataSource(), transports);
    }
    out.println(new ObjectMapper().writeValueAsString(j));
    out.flush();
    System.exit(0); // a transport's client thread must not keep this JVM
  }

  private static void await(E2eTimings timings, long n, long timeoutNanos)
      throws InterruptedException {
    if (!timings.await(n, timeoutNanos, () -> {})) {
      throw new IllegalStateException(
          "the service committed only " + timings.effects() + " of " + n + " effects in time");
    }
  }

  /** The service's tables, markers, outbox rows and queue, cleared by the bench, not by it. */
  private static void clear(DataSource ds, Function<DataSource, Transport> transports) {
    try (Transport t = transports.apply(ds)) {
      t.declare(OrderService.ORDERS, OrderService.CONSUMER);
      t.capability(QueueAdmin.class)
          .ifPresent(a -> a.purge(OrderService.ORDERS, OrderService.CONSUMER));
    } catch (Exception e) {
      throw new IllegalStateException("service run: could not purge its queue: " + e, e);
    }
    BenchTables.run(
        ds,
        "TRUNCATE service_orders, service_effects;"
            + " DELETE FROM once_inbox WHERE consumer_id = '"
            + OrderService.CONSUMER
            + "'; DELETE FROM once_outbox WHERE destination = '"
            + OrderService.ORDERS
            + "'");
  }
}
