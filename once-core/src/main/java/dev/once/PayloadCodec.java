package dev.once;

import java.util.Iterator;
import java.util.ServiceLoader;

/**
 * Turns typed payloads (records, POJOs) into bytes and back. The content type it writes is recorded
 * in the event's {@value #CONTENT_TYPE_HEADER} header.
 *
 * <p>Once finds a codec on the classpath through {@link ServiceLoader} (module {@code once-jackson}
 * registers one), or is given one with {@link OnceBuilder#codec} and {@link Event.Builder#codec}.
 */
public interface PayloadCodec {

  /** The header that records a payload's content type. */
  String CONTENT_TYPE_HEADER = "once-content-type";

  /** The content type of what {@link #encode} returns, e.g. {@code application/json}. */
  String contentType();

  /** The value as bytes. Throws on a value it cannot encode. */
  byte[] encode(Object value) throws Exception;

  /** The bytes as a {@code type}. Throws on bytes that are not a {@code type}. */
  <T> T decode(byte[] payload, Class<T> type) throws Exception;

  /**
   * The codec registered on the classpath ({@code META-INF/services/dev.once.PayloadCodec}).
   *
   * @throws ConfigurationException if there is none, or more than one
   */
  static PayloadCodec discover() {
    Iterator<PayloadCodec> found = ServiceLoader.load(PayloadCodec.class).iterator();
    if (!found.hasNext()) {
      throw new ConfigurationException(
          "codec",
          "is required for typed payloads: add the once-jackson module to the classpath, or set"
              + " one with OnceBuilder.codec(...) / Event.Builder.codec(...)");
    }
    PayloadCodec codec = found.next();
    if (found.hasNext()) {
      throw new ConfigurationException(
          "codec",
          "is ambiguous: more than one PayloadCodec is on the classpath ("
              + codec.getClass().getName()
              + ", "
              + found.next().getClass().getName()
              + "); set one with OnceBuilder.codec(...)");
    }
    return codec;
  }
}
