package dev.once.bench.e2e;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.util.*;

/** Producers alone: args transport events rounds variants (raw, once, oncenn). */
public final class ProdBisect {
  static String URL = System.getenv("DB");
  static String AMQP = System.getenv("AMQP");

  public static void main(String[] a) throws Exception {
    String transport = a[0];
    int events = Integer.parseInt(a[1]);
    int rounds = Integer.parseInt(a[2]);
    List<String> variants = Arrays.asList(a).subList(3, a.length);
    BenchSettings s = new BenchSettings(events, 4, 32, 2, 200, 4, 1, 16, 0, 900);
    HikariConfig c = new HikariConfig();
    c.setJdbcUrl(URL);
    c.setMaximumPoolSize(48);
    HikariDataSource bp = new HikariDataSource(c);
    BenchEnv env = new BenchEnv(bp, "x", transport, AMQP, () -> null, s).jdbcUrl(URL);
    Map<String, List<Double>> res = new LinkedHashMap<>();
    for (int r = 0; r < rounds; r++) {
      for (String v : variants) {
        System.setProperty("once.probe.nonotify", Boolean.toString(v.equals("oncenn")));
        System.setProperty("once.probe.oldsignal", Boolean.toString(v.equals("onceold")));
        System.setProperty("once.probe.spacing", v.startsWith("oncesp") ? v.substring(6) : "2");
        long cpu0 = cpu();
        long t0 = System.nanoTime();
        double eps;
        if (v.equals("raw")) {
          try (HandBroker broker = HandBroker.open(env, s)) {
            HandPipeline p = new HandPipeline(bp, broker, s, HandPipeline.Shape.ONE_HOP);
            try { eps = p.producersAlone(); } finally { p.close(); }
          }
        } else {
          eps = OnceE2e.producersAlone(env, s);
        }
        res.computeIfAbsent(v, k -> new ArrayList<>()).add(eps);
        System.out.printf("round %d %-7s %7.1f  cpu/order %5.1f us  load %s%n", r, v, eps,
            (cpu() - cpu0) / 1000.0 / events, load());
        BenchTables.run(bp, "VACUUM once_outbox, bench_c_outbox, bench_c_orders");
      }
    }
    res.forEach((k, l) -> { List<Double> x = new ArrayList<>(l); Collections.sort(x);
      System.out.printf("%-7s median %7.1f  %s%n", k, x.get(x.size() / 2), l); });
    System.exit(0);
  }

  static long cpu() {
    return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
  }

  static String load() {
    try { return java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).split(" ")[0]; }
    catch (Exception e) { return "?"; }
  }
}
