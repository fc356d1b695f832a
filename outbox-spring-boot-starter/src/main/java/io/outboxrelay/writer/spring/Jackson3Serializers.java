package io.outboxrelay.writer.spring;

import io.outboxrelay.writer.PayloadSerializer;
import org.springframework.beans.factory.ListableBeanFactory;
import tools.jackson.databind.ObjectMapper;

/** A serializer on the application's Jackson 3 mapper; loaded only when Jackson 3 is present. */
final class Jackson3Serializers {

  private Jackson3Serializers() {}

  /** On the application's single (or primary) Jackson 3 mapper bean, or {@code null}. */
  static PayloadSerializer fromBean(ListableBeanFactory beans) {
    ObjectMapper mapper = beans.getBeanProvider(ObjectMapper.class).getIfUnique();
    return mapper == null ? null : new Jackson3PayloadSerializer(mapper);
  }

  /** Serialises with a Jackson 3 mapper ({@code writeValueAsBytes}, UTF-8). Thread-safe. */
  private record Jackson3PayloadSerializer(ObjectMapper mapper) implements PayloadSerializer {

    @Override
    public byte[] serialize(Object payload) {
      return mapper.writeValueAsBytes(payload);
    }
  }
}
