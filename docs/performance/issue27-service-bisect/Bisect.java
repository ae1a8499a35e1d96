package dev.once.bench.e2e;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.once.bench.e2e.service.OrderService;
import dev.once.rabbitmq.RabbitTransport;
import dev.once.spi.QueueAdmin;
import dev.once.spi.Transport;
import dev.once.tablequeue.TableQueueTransport;
import java.io.PrintStream;
import java.io.OutputStream;
import java.util.*;
import java.util.function.Function;
import javax.sql.DataSource;

/** Experiments: args transport events rounds variants... */
public final class Bisect {
  static String URL = System.getenv("DB");
  static String AMQP = System.getenv("AMQP");

  static HikariDataSource pool(int n, String name) {
    HikariConfig c = new HikariConfig();
    c.setJdbcUrl(URL);
    c.setMaximumPoolSize(n);
    c.setPoolName(name);
    return new HikariDataSource(c);
  }

  public static void main(String[] a) throws Exception {
    String transport = a[0];
    int events = Integer.parseInt(a[1]);
    int rounds = Integer.parseInt(a[2]);
    List<String> variants = Arrays.asList(a).subList(3, a.length);
    BenchSettings s = new BenchSettings(events, 4, 32, 2, 200, 4, 1, 16, 0, 900);
    PrintStream quiet = new PrintStream(OutputStream.nullOutputStream());
    Map<String, List<Double>> res = new LinkedHashMap<>();
    for (int r = 0; r < rounds; r++) {
      for (String v : variants) {
        int size = v.endsWith("14") || v.startsWith("child") ? 14 : 48;
        HikariDataSource bp = pool(v.startsWith("once") ? size : 2, "bench");
        BenchEnv e48 = new BenchEnv(bp, "x", transport, AMQP, () -> null, s).jdbcUrl(URL);
        BenchEnv e14 = e48;
        double eps;
        try { eps = switch (v) {
          case "once48" -> OnceE2e.run(e48, s, 1, 0, OnceE2e.DEFAULT_LINGER, BenchTracing.of("off"), quiet).eps();
          case "once14" -> OnceE2e.run(e14, s, 1, 0, OnceE2e.DEFAULT_LINGER, BenchTracing.of("off"), quiet).eps();
          case "svc14" -> svc(transport, events, 14, 0);
          case "svc48" -> svc(transport, events, 48, 0);
          case "child14" -> ((Number) ServiceBench.run(e48, 0, 1, 14, quiet).get("service_eps")).doubleValue();
          case "child14w" -> ((Number) ServiceBench.run(e48, 2000, 1, 14, quiet).get("service_eps")).doubleValue();
          case "child48" -> ((Number) ServiceBench.run(e48, 0, 1, 48, quiet).get("service_eps")).doubleValue();
          default -> throw new IllegalArgumentException(v);
        }; } finally { bp.close(); }
        res.computeIfAbsent(v, k -> new ArrayList<>()).add(eps);
        System.out.printf("round %d %-8s %7.1f  load %s%n", r, v, eps, load());
      }
    }
    res.forEach((k, l) -> { List<Double> x = new ArrayList<>(l); Collections.sort(x);
      System.out.printf("%-8s median %7.1f  %s%n", k, x.get(x.size() / 2), l); });
    System.exit(0);
  }

  static String load() {
    try { return java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).split(" ")[0]; }
    catch (Exception e) { return "?"; }
  }

  static double svc(String transport, int events, int pool, int warmup) throws Exception {
    Function<DataSource, Transport> transports =
        ds -> switch (transport) {
          case "rabbitmq" -> RabbitTransport.builder().uri(AMQP).build();
          default -> TableQueueTransport.create(ds);
        };
    E2eTimings timings = new E2eTimings(OrderService.ORDERS, OrderService.CONSUMER);
    try (OrderService service = new OrderService(URL, pool, transports, 4, 2, timings)) {
      try (Transport t = transports.apply(service.dataSource())) {
        t.declare(OrderService.ORDERS, OrderService.CONSUMER);
        t.capability(QueueAdmin.class).ifPresent(x -> x.purge(OrderService.ORDERS, OrderService.CONSUMER));
      }
      BenchTables.run(service.dataSource(), "TRUNCATE service_orders, service_effects; DELETE FROM once_inbox WHERE consumer_id = 'bench-service'; DELETE FROM once_outbox WHERE destination = 'bench-service-orders'");
      BenchTables.run(service.dataSource(), "VACUUM once_outbox, once_queue, once_inbox");
      service.start();
      int win = Integer.getInteger("win", 0);
      if (win > 0) {
        for (long first = 1; first <= events; first += win) {
          Producers.fullSpeed((from, to) -> service.placeOrder(from), 4, 1, first, win);
          timings.await(first - 1 + win, 900_000_000_000L, () -> {});
          System.out.printf("  window %6d: %7.1f  load %s  jit %d ms  gc %d ms%n", first, timings.eps(first, first + win), load(),
              java.lang.management.ManagementFactory.getCompilationMXBean().getTotalCompilationTime(),
              java.lang.management.ManagementFactory.getGarbageCollectorMXBeans().stream().mapToLong(g -> g.getCollectionTime()).sum());
        }
        return timings.eps(1, events + 1);
      }
      Producers.fullSpeed((from, to) -> service.placeOrder(from), 4, 1, 1, events);
      timings.await(events, 900_000_000_000L, () -> {});
      return timings.eps(1, events + 1);
    }
  }
}
