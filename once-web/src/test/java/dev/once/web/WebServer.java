package dev.once.web;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServlet;
import java.io.IOException;
import java.nio.file.Files;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;

/**
 * One real HTTP server (embedded Tomcat) per test JVM: {@code /orders} behind a filter that hands
 * each request to the filter and servlet the current test set.
 */
final class WebServer {
  private static WebServer instance;

  private final Tomcat tomcat = new Tomcat();
  private volatile Filter filter;
  private volatile HttpServlet servlet;
  private final int port;

  private WebServer() throws IOException, LifecycleException {
    tomcat.setBaseDir(Files.createTempDirectory("once-web-tomcat").toString());
    tomcat.setPort(0);
    Context ctx = tomcat.addContext("", null);
    Tomcat.addServlet(
        ctx,
        "app",
        new HttpServlet() {
          private static final long serialVersionUID = 1L;

          @Override
          protected void service(
              jakarta.servlet.http.HttpServletRequest req,
              jakarta.servlet.http.HttpServletResponse res)
              throws ServletException, IOException {
            servlet.service(req, res);
          }
        });
    ctx.addServletMappingDecoded("/*", "app");
    FilterDef def = new FilterDef();
    def.setFilterName("once");
    def.setFilter(
        new Filter() {
          @Override
          public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
              throws IOException, ServletException {
            filter.doFilter(req, res, chain);
          }
        });
    ctx.addFilterDef(def);
    FilterMap map = new FilterMap();
    map.setFilterName("once");
    map.addURLPattern("/*");
    ctx.addFilterMap(map);
    tomcat.getConnector();
    tomcat.start();
    port = tomcat.getConnector().getLocalPort();
  }

  static synchronized WebServer get() {
    if (instance == null) {
      try {
        instance = new WebServer();
      } catch (IOException | LifecycleException e) {
        throw new IllegalStateException("embedded Tomcat did not start", e);
      }
    }
    return instance;
  }

  WebServer serve(Filter filter, HttpServlet servlet) {
    this.filter = filter;
    this.servlet = servlet;
    return this;
  }

  String url(String path) {
    return "http://127.0.0.1:" + port + path;
  }
}
