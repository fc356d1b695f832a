package io.outboxrelay.writer.spring;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.outboxrelay.writer.PayloadSerializer;
import io.outboxrelay.writer.jackson.JacksonPayloadSerializer;
import org.springframework.beans.factory.ListableBeanFactory;

/** A serializer on the application's Jackson 2 mapper; loaded only when Jackson 2 is present. */
final class Jackson2Serializers {

  private Jackson2Serializers() {}

  /** On the application's single (or primary) Jackson 2 mapper bean, or {@code null}. */
  static PayloadSerializer fromBean(ListableBeanFactory beans) {
    ObjectMapper mapper = beans.getBeanProvider(ObjectMapper.class).getIfUnique();
    return mapper == null ? null : new JacksonPayloadSerializer(mapper);
  }
}
