package dev.once.spring;

import dev.once.PayloadCodec;
import tools.jackson.databind.json.JsonMapper;

/**
 * The {@link PayloadCodec} of a Spring Boot application: JSON with the application's own Jackson
 * {@link JsonMapper} (Boot 4 uses Jackson 3), so payloads follow the same mapping rules as its REST
 * endpoints. Declare a {@code PayloadCodec} bean to use another.
 */
public final class JsonMapperCodec implements PayloadCodec {
  private final JsonMapper mapper;

  public JsonMapperCodec(JsonMapper mapper) {
    this.mapper = mapper;
  }

  @Override
  public String contentType() {
    return "application/json";
  }

  @Override
  public byte[] encode(Object value) {
    return mapper.writeValueAsBytes(value);
  }

  @Override
  public <T> T decode(byte[] payload, Class<T> type) {
    return mapper.readValue(payload, type);
  }
}
