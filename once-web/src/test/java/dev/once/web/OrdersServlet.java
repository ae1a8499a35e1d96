package dev.once.web;

import dev.once.Event;
import dev.once.EventId;
import dev.once.Tx;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.UUID;

/**
 * {@code POST /orders}: a new order (a new id on every run, so a second run is a second order) and
 * its event, on the request's transaction. {@code X-Test-Sleep-Ms} makes it take that long inside
 * the transaction; {@code X-Test-Fail: throw | 500} makes it fail after writing the order; {@code
 * X-Test-Body-Bytes} answers that many bytes.
 */
final class OrdersServlet extends HttpServlet {
  private static final long serialVersionUID = 1L;

  @Override
  protected void doPost(HttpServletRequest req, HttpServletResponse res) throws IOException {
    String body = new String(req.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    Tx tx = OnceRequests.tx(req);
    String id = UUID.randomUUID().toString();
    tx.update("INSERT INTO orders (id, request) VALUES (?, ?)", id, body);
    tx.publish(
        Event.builder()
            .id(EventId.of("order-placed", id))
            .type("OrderPlaced")
            .destination("orders")
            .key(id)
            .payload("{\"order\":\"" + id + "\"}")
            .build());
    String sleep = req.getHeader("X-Test-Sleep-Ms");
    if (sleep != null) {
      try {
        Thread.sleep(Long.parseLong(sleep));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    String fail = req.getHeader("X-Test-Fail");
    if ("throw".equals(fail)) {
      throw new IllegalStateException("the stock service said no");
    }
    if ("500".equals(fail)) {
      res.sendError(500, "the stock service is down");
      return;
    }
    String size = req.getHeader("X-Test-Body-Bytes");
    res.setStatus(201);
    res.setHeader("Location", "/orders/" + id);
    res.setHeader("X-Not-Stored", "per-response");
    if (size != null) {
      res.setContentType("application/octet-stream");
      res.getOutputStream().write(new byte[Integer.parseInt(size)]);
      return;
    }
    res.setContentType("application/json;charset=UTF-8");
    res.getWriter().write("{\"id\":\"" + id + "\",\"note\":\"größer\"}");
  }
}
