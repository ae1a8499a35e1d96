package dev.once.spring;

/**
 * Turns a handler's typed payload parameter into an object and a published object into bytes. The
 * default uses the application's Jackson {@code JsonMapper}; declare a bean to use another format.
 */
public interface PayloadConverter {

  /** For an application without Jackson: typed payloads fail, naming what to add. */
  PayloadConverter NONE =
      new PayloadConverter() {
        @Override
        public <T> T read(byte[] payload, Class<T> type) {
          throw missing(type.getName());
        }

        @Override
        public byte[] write(Object payload) {
          throw missing(payload.getClass().getName());
        }

        private IllegalStateException missing(String type) {
          return new IllegalStateException(
              "no PayloadConverter for typed payload "
                  + type
                  + ": add Jackson (tools.jackson.core:jackson-databind) or declare a"
                  + " PayloadConverter bean");
        }
      };

  /** The payload's bytes as an instance of {@code type}; throws if they are not one. */
  <T> T read(byte[] payload, Class<T> type);

  byte[] write(Object payload);

  /** The content type written to the event's {@code content-type} header, e.g. JSON. */
  default String contentType() {
    return "application/json";
  }
}
