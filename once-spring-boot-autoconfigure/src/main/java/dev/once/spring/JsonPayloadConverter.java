package dev.once.spring;

import tools.jackson.databind.json.JsonMapper;

/** {@link PayloadConverter} for JSON, with the application's {@link JsonMapper}. */
public final class JsonPayloadConverter implements PayloadConverter {
  private final JsonMapper mapper;

  public JsonPayloadConverter(JsonMapper mapper) {
    this.mapper = mapper;
  }

  @Override
  public <T> T read(byte[] payload, Class<T> type) {
    return mapper.readValue(payload, type);
  }

  @Override
  public byte[] write(Object payload) {
    return mapper.writeValueAsBytes(payload);
  }
}
