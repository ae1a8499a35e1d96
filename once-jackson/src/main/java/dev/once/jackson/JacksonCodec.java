package dev.once.jackson;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.once.PayloadCodec;

/**
 * Typed payloads as JSON through Jackson: records and POJOs. Registered on the classpath, so with
 * this module present {@code Event.builder().payload(new OrderPaid(814, 1200))} and {@code
 * subscribe("orders", OrderPaid.class, …)} work without further setup.
 *
 * <p>The default mapper ignores properties it does not know, so that a producer can add a field to
 * an event before every consumer knows it. Give your own mapper with {@link #JacksonCodec(
 * ObjectMapper)} and {@code OnceBuilder.codec(…)}.
 */
public final class JacksonCodec implements PayloadCodec {
  private final ObjectMapper mapper;

  /** A codec with a mapper that ignores unknown properties. */
  public JacksonCodec() {
    this(
        JsonMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .findAndAddModules()
            .build());
  }

  public JacksonCodec(ObjectMapper mapper) {
    if (mapper == null) {
      throw new IllegalArgumentException("mapper is required");
    }
    this.mapper = mapper;
  }

  @Override
  public String contentType() {
    return "application/json";
  }

  @Override
  public byte[] encode(Object value) throws Exception {
    return mapper.writeValueAsBytes(value);
  }

  @Override
  public <T> T decode(byte[] payload, Class<T> type) throws Exception {
    return mapper.readValue(payload, type);
  }
}
