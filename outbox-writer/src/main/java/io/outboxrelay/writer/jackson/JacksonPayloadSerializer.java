package io.outboxrelay.writer.jackson;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.outboxrelay.writer.PayloadSerializer;
import java.util.Objects;

/**
 * Serialises payload objects to JSON with a Jackson 2 {@link ObjectMapper} (its {@code
 * writeValueAsBytes}, UTF-8). Use the application's mapper, so payloads follow its settings
 * (modules, naming, dates).
 *
 * <p>Thread-safe, as {@code ObjectMapper} is once configured. Needs {@code
 * com.fasterxml.jackson.core:jackson-databind} on the classpath, an optional dependency of the
 * writer: nothing else in the writer refers to this class.
 */
public final class JacksonPayloadSerializer implements PayloadSerializer {

  private final ObjectMapper mapper;

  /**
   * Creates a serializer.
   *
   * @param mapper the mapper; not {@code null}; not to be reconfigured afterwards
   */
  public JacksonPayloadSerializer(ObjectMapper mapper) {
    this.mapper = Objects.requireNonNull(mapper, "mapper");
  }

  @Override
  public byte[] serialize(Object payload) throws Exception {
    return mapper.writeValueAsBytes(payload);
  }

  @Override
  public String toString() {
    return "JacksonPayloadSerializer";
  }
}
