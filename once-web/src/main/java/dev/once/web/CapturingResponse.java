package dev.once.web;

import dev.once.StoredResponse;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The handler's response, kept in memory: nothing reaches the client before the request's
 * transaction has committed (a client must never see the answer of a change that rolled back).
 */
final class CapturingResponse extends HttpServletResponseWrapper {
  private final ByteArrayOutputStream body = new ByteArrayOutputStream();
  private final Map<String, List<String>> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
  private final Map<String, String> names = new LinkedHashMap<>();
  private int status = 200;
  private String charset;
  private PrintWriter writer;
  private ServletOutputStream stream;

  CapturingResponse(HttpServletResponse response) {
    super(response);
  }

  /** What the handler answered, with only the {@code stored} headers. */
  StoredResponse toStored(Set<String> stored) {
    Map<String, List<String>> kept = new LinkedHashMap<>();
    headers.forEach(
        (name, values) -> {
          if (stored.contains(name)) {
            kept.put(names.getOrDefault(name.toLowerCase(java.util.Locale.ROOT), name), values);
          }
        });
    return StoredResponse.of(status, kept, bytes());
  }

  /** Every header the handler set, for the first response. */
  Map<String, List<String>> allHeaders() {
    Map<String, List<String>> all = new LinkedHashMap<>();
    headers.forEach(
        (name, values) ->
            all.put(names.getOrDefault(name.toLowerCase(java.util.Locale.ROOT), name), values));
    return all;
  }

  private byte[] bytes() {
    if (writer != null) {
      writer.flush();
    }
    return body.toByteArray();
  }

  private void put(String name, String value, boolean add) {
    names.putIfAbsent(name.toLowerCase(java.util.Locale.ROOT), name);
    List<String> values = add ? headers.computeIfAbsent(name, k -> new ArrayList<>()) : null;
    if (values == null) {
      values = new ArrayList<>();
      headers.put(name, values);
    }
    values.add(value);
  }

  @Override
  public void setStatus(int sc) {
    status = sc;
  }

  @Override
  public int getStatus() {
    return status;
  }

  @Override
  public void sendError(int sc) {
    sendError(sc, null);
  }

  @Override
  public void sendError(int sc, String msg) {
    status = sc;
    body.reset();
    if (msg != null) {
      setContentType("text/plain;charset=UTF-8");
      body.writeBytes(msg.getBytes(StandardCharsets.UTF_8));
    }
  }

  @Override
  public void sendRedirect(String location) {
    status = 302;
    setHeader("Location", location);
  }

  @Override
  public void setHeader(String name, String value) {
    if (name.equalsIgnoreCase("Content-Type")) {
      setContentType(value);
      return;
    }
    put(name, value, false);
  }

  @Override
  public void addHeader(String name, String value) {
    put(name, value, true);
  }

  @Override
  public void setIntHeader(String name, int value) {
    setHeader(name, Integer.toString(value));
  }

  @Override
  public void addIntHeader(String name, int value) {
    addHeader(name, Integer.toString(value));
  }

  @Override
  public void setDateHeader(String name, long date) {
    setHeader(
        name,
        java.time.format.DateTimeFormatter.RFC_1123_DATE_TIME.format(
            java.time.Instant.ofEpochMilli(date).atZone(java.time.ZoneOffset.UTC)));
  }

  @Override
  public void addDateHeader(String name, long date) {
    addHeader(
        name,
        java.time.format.DateTimeFormatter.RFC_1123_DATE_TIME.format(
            java.time.Instant.ofEpochMilli(date).atZone(java.time.ZoneOffset.UTC)));
  }

  @Override
  public boolean containsHeader(String name) {
    return headers.containsKey(name);
  }

  @Override
  public String getHeader(String name) {
    List<String> v = headers.get(name);
    return v == null || v.isEmpty() ? null : v.get(0);
  }

  @Override
  public Collection<String> getHeaders(String name) {
    return List.copyOf(headers.getOrDefault(name, List.of()));
  }

  @Override
  public Collection<String> getHeaderNames() {
    return List.copyOf(names.values());
  }

  @Override
  public void setContentType(String type) {
    if (type == null) {
      headers.remove("Content-Type");
      return;
    }
    int i = type.toLowerCase(java.util.Locale.ROOT).indexOf("charset=");
    if (i >= 0) {
      charset = type.substring(i + 8).replace("\"", "").strip();
    } else if (charset != null && type.startsWith("text/")) {
      type = type + ";charset=" + charset;
    }
    put("Content-Type", type, false);
  }

  @Override
  public String getContentType() {
    return getHeader("Content-Type");
  }

  @Override
  public void setCharacterEncoding(String cs) {
    charset = cs;
    String type = getContentType();
    if (type != null && !type.toLowerCase(java.util.Locale.ROOT).contains("charset=")) {
      put("Content-Type", type + ";charset=" + cs, false);
    }
  }

  @Override
  public String getCharacterEncoding() {
    return charset == null ? StandardCharsets.ISO_8859_1.name() : charset;
  }

  @Override
  public void setContentLength(int len) {
    // the length is the captured body's, set when it is written
  }

  @Override
  public void setContentLengthLong(long len) {
    // as setContentLength
  }

  @Override
  public ServletOutputStream getOutputStream() {
    if (writer != null) {
      throw new IllegalStateException("getWriter() was called on this response already");
    }
    if (stream == null) {
      stream =
          new ServletOutputStream() {
            @Override
            public void write(int b) {
              body.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) {
              body.write(b, off, len);
            }

            @Override
            public boolean isReady() {
              return true;
            }

            @Override
            public void setWriteListener(WriteListener listener) {
              throw new UnsupportedOperationException("keyed requests are written after commit");
            }
          };
    }
    return stream;
  }

  @Override
  public PrintWriter getWriter() {
    if (stream != null) {
      throw new IllegalStateException("getOutputStream() was called on this response already");
    }
    if (writer == null) {
      writer =
          new PrintWriter(new OutputStreamWriter(body, Charset.forName(getCharacterEncoding())));
    }
    return writer;
  }

  @Override
  public void flushBuffer() {
    if (writer != null) {
      writer.flush();
    }
  }

  @Override
  public boolean isCommitted() {
    return false;
  }

  @Override
  public void reset() {
    resetBuffer();
    headers.clear();
    names.clear();
    status = 200;
  }

  @Override
  public void resetBuffer() {
    if (writer != null) {
      writer.flush();
    }
    body.reset();
  }

  @Override
  public void setBufferSize(int size) {
    // everything is buffered until the commit
  }

  /** Writes {@code r} to the real response, with {@code headers}. */
  static void send(
      HttpServletResponse out, int status, Map<String, List<String>> headers, byte[] body)
      throws IOException {
    out.setStatus(status);
    headers.forEach(
        (name, values) -> {
          if (name.equalsIgnoreCase("Content-Type") && !values.isEmpty()) {
            out.setContentType(values.get(0));
          } else {
            values.forEach(v -> out.addHeader(name, v));
          }
        });
    out.setContentLength(body.length);
    out.getOutputStream().write(body);
  }
}
