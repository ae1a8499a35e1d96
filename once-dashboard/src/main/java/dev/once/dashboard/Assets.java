package dev.once.dashboard;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.InputStream;
import java.util.Map;

/** The page and its scripts from the classpath; uPlot from its WebJar. No build step. */
final class Assets {
  private static final String UPLOT = "META-INF/resources/webjars/uplot/1.6.30/dist/";
  private static final Map<String, String[]> FILES =
      Map.of(
          "", new String[] {"dev/once/dashboard/web/index.html", "text/html; charset=utf-8"},
          "index.html",
              new String[] {"dev/once/dashboard/web/index.html", "text/html; charset=utf-8"},
          "app.js",
              new String[] {"dev/once/dashboard/web/app.js", "text/javascript; charset=utf-8"},
          "app.css", new String[] {"dev/once/dashboard/web/app.css", "text/css; charset=utf-8"},
          "vendor/uPlot.iife.min.js",
              new String[] {UPLOT + "uPlot.iife.min.js", "text/javascript; charset=utf-8"},
          "vendor/uPlot.min.css",
              new String[] {UPLOT + "uPlot.min.css", "text/css; charset=utf-8"});

  private Assets() {}

  static void serve(HttpExchange ex, String path) throws IOException {
    String[] file = FILES.get(path);
    if (file == null) {
      throw new BadRequest(404, "no such page: " + Params.shorten(path));
    }
    try (InputStream in = Assets.class.getClassLoader().getResourceAsStream(file[0])) {
      if (in == null) {
        throw new IllegalStateException(file[0] + " is missing from the classpath");
      }
      Http.send(ex, 200, file[1], in.readAllBytes());
    }
  }
}
